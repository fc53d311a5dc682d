// The phone's top bar: ☰ (the sidebar), the page's or chat's title, and a
// search button (the ⌘K palette, for touch). A chat draws its own, with its
// name to rename; other pages get this one. Hidden on wider screens, where
// the sidebar and ⌘K are always at hand.

/** What the shell lends the bar: set by the shell on each render. */
export const shell = {
  menu: () => {},
  search: () => {},
  menuOpen: false,
};

export function PhoneButtons(props: { menu?: boolean; search?: boolean }) {
  return (
    <>
      {props.menu && (
        <button class="phone-only icon" aria-label="Chats and pages" aria-expanded={shell.menuOpen} onClick={() => shell.menu()}>
          ☰
        </button>
      )}
      {props.search && (
        <button class="phone-only icon" aria-label="Find" title="Find chats, skills and commands" onClick={() => shell.search()}>
          ⌕
        </button>
      )}
    </>
  );
}

export function TopBar({ title }: { title: string }) {
  return (
    <header class="topbar phone-only">
      <PhoneButtons menu />
      <span class="top-title">{title}</span>
      <PhoneButtons search />
    </header>
  );
}
