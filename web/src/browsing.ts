import type { Entry, ToolEntry } from "./events";

/** Conch's browser in this chat, as its calls left it: the page it is on,
 *  its latest screenshot, and the page as the assistant last read it. */
export function latestBrowsing(entries: Entry[]): { page: ToolEntry | null; shot: ToolEntry | null } {
  let page: ToolEntry | null = null;
  let shot: ToolEntry | null = null;
  for (const e of entries) {
    if (e.type !== "tool" || !e.entry.tool.startsWith("browser_") || !e.entry.ok) continue;
    const d = e.entry.detail ?? {};
    if (typeof d.url === "string") page = e.entry;
    if (typeof d.screenshot === "string") shot = e.entry;
  }
  return { page, shot };
}
