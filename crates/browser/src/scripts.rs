//! The two small scripts the browser runs in pages: one counts the
//! requests a page's own script has open, so a page drawn by script is read
//! once it has drawn; the other waits for the page to be still.

/// Added to every page before its own scripts run.
pub const COUNT_REQUESTS: &str = r#"(() => {
  if (window.__conchPending !== undefined) return;
  let open = 0;
  Object.defineProperty(window, "__conchPending", { get: () => open });
  const fetch = window.fetch;
  if (fetch) {
    window.fetch = function (...args) {
      open++;
      return fetch.apply(this, args).finally(() => { open--; });
    };
  }
  const send = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.send = function (...args) {
    open++;
    this.addEventListener("loadend", () => { open--; }, { once: true });
    return send.apply(this, args);
  };
})();"#;

/// Resolves once nothing in the page has changed for 100 ms and no request
/// of its own is open, or after 5 s.
pub const SETTLE: &str = r#"new Promise((resolve) => {
  const start = Date.now();
  let last = start;
  const watch = new MutationObserver(() => { last = Date.now(); });
  watch.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  const tick = () => {
    const now = Date.now();
    const open = window.__conchPending || 0;
    if ((now - last >= 100 && open === 0) || now - start >= 5000) {
      watch.disconnect();
      resolve(true);
    } else {
      setTimeout(tick, 20);
    }
  };
  setTimeout(tick, 20);
})"#;

/// Selects a field's text, so typing replaces it.
pub const SELECT_ALL: &str = r#"function () {
  if (typeof this.select === "function") { this.select(); return; }
  const range = document.createRange();
  range.selectNodeContents(this);
  const selection = getSelection();
  selection.removeAllRanges();
  selection.addRange(range);
}"#;

/// Empties a field, as deleting its text would.
pub const CLEAR: &str = r#"function () {
  if ("value" in this) { this.value = ""; } else { this.textContent = ""; }
  this.dispatchEvent(new Event("input", { bubbles: true }));
}"#;

/// Whether `other` is this element or inside it.
pub const CONTAINS: &str = "function (other) { return this === other || this.contains(other); }";
