// "Needs you" in the browser: whether this browser shows a notification
// when a question waits while the page is hidden (notices.ts shows it).
// The owner turns it on in Settings (which asks the browser's permission);
// the choice is kept in this browser's localStorage (`conch.notify`).

const KEY = "conch.notify";

export function notifyOn(): boolean {
  return typeof Notification !== "undefined" && Notification.permission === "granted" && localStorage.getItem(KEY) === "on";
}

export function setNotify(on: boolean): void {
  localStorage.setItem(KEY, on ? "on" : "off");
}
