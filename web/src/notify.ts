// "Needs you" in the browser: a notification when a chat starts waiting for
// an answer while the page is hidden. The owner turns it on in Settings
// (which asks the browser's permission); the choice is kept in this
// browser's localStorage (`conch.notify`).

const KEY = "conch.notify";

export function notifyOn(): boolean {
  return typeof Notification !== "undefined" && Notification.permission === "granted" && localStorage.getItem(KEY) === "on";
}

export function setNotify(on: boolean): void {
  localStorage.setItem(KEY, on ? "on" : "off");
}

/** Says a chat needs the owner, when the page is hidden and they allowed it. */
export function needsYou(chat: string, title: string, open: (id: string) => void): void {
  if (!notifyOn() || document.visibilityState !== "hidden") return;
  const n = new Notification("Conch needs you", {
    body: `${title}: a question is waiting for your answer.`,
    tag: `conch-${chat}`,
  });
  n.onclick = () => {
    window.focus();
    open(chat);
    n.close();
  };
}
