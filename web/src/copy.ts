// Copying text: the Clipboard API, or where it says no (the page isn't
// focused, say), a selected hidden text box.

export async function copy(text: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
    return;
  } catch {
    const box = document.createElement("textarea");
    box.value = text;
    box.setAttribute("readonly", "");
    box.className = "visually-hidden";
    document.body.append(box);
    box.select();
    const done = document.execCommand("copy");
    box.remove();
    if (!done) throw new Error("Conch couldn't copy it: your browser said no. Select the text instead.");
  }
}
