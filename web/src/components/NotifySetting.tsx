// Settings → Notifications: a notification in this browser when a chat
// needs you and the page is hidden (the Notifications API).

import { useState } from "preact/hooks";
import { notifyOn, setNotify } from "../notify";

export function NotifySetting() {
  const supported = typeof Notification !== "undefined";
  const [on, setOn] = useState(notifyOn());
  const [said, setSaid] = useState<string | null>(null);
  if (!supported) {
    return (
      <section>
        <h2>Notifications</h2>
        <p class="quiet">This browser can't show notifications.</p>
      </section>
    );
  }
  return (
    <section>
      <h2>Notifications</h2>
      <p class="quiet">
        When a chat needs your answer and this page is hidden, this browser shows a notification. The tab's title and the
        sidebar say it either way.
      </p>
      <button
        onClick={async () => {
          setSaid(null);
          if (on) {
            setNotify(false);
            setOn(false);
            return;
          }
          const permission = await Notification.requestPermission();
          if (permission === "granted") {
            setNotify(true);
            setOn(true);
          } else {
            setSaid("Your browser said no. Allow notifications for this site in its settings, then turn this on again.");
          }
        }}
      >
        {on ? "Turn off notifications" : "Tell me when a chat needs me"}
      </button>
      <span class="quiet" role="status">
        {" "}
        {on ? "On in this browser." : "Off."}
      </span>
      {said && (
        <p class="error" role="alert">
          {said}
        </p>
      )}
    </section>
  );
}
