import type { Entry } from "../events";
import { latestBrowsing } from "../browsing";
import "./BrowserPanel.css";

/** The Browser panel beside the chat (one of the two panels at a time). */
export function BrowserPanel(props: { chat: string; entries: Entry[]; onClose: () => void }) {
  const { page, shot } = latestBrowsing(props.entries);
  const d = page?.detail ?? {};
  const name = typeof shot?.detail?.screenshot === "string" ? shot.detail.screenshot.replace(/^browser\//, "") : null;
  return (
    <aside class="panel browser-panel" aria-label="Browser">
      <div class="panel-inner">
        <header class="panel-head">
          <button class="panel-back" onClick={props.onClose}>
            ← Back to the chat
          </button>
          <div class="panel-title">
            <h2>Browser</h2>
          </div>
          <button class="panel-close" aria-label="Close the Browser panel" onClick={props.onClose}>
            ×
          </button>
        </header>
        <div class="panel-body">
          {!page && <p class="quiet">The assistant hasn't opened a page in this chat.</p>}
          {page && (
            <>
              <p class="browser-where">
                <strong>{String(d.title || "Untitled page")}</strong>
                <br />
                <code>{String(d.url)}</code>
              </p>
              {name && (
                <img
                  class="browser-shot"
                  src={`/api/chats/${encodeURIComponent(props.chat)}/browser/${encodeURIComponent(name)}`}
                  alt={`The browser's page when the assistant last took a screenshot${shot?.detail?.title ? `: ${String(shot.detail.title)}` : ""}`}
                />
              )}
              <details open={!name}>
                <summary>The page as the assistant last read it</summary>
                <pre class="output">{page.output}</pre>
              </details>
            </>
          )}
        </div>
      </div>
    </aside>
  );
}
