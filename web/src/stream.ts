// One chat's events, kept in step with the server: what was stored is
// loaded page by page, then the live stream carries on from the last `seq`
// seen. EventSource reconnects by itself with Last-Event-ID; a `seq` already
// held is dropped, so a reload or a dropped connection shows nothing twice
// and skips nothing.

import { api } from "./api";
import type { Event } from "./events";

export interface Live {
  events: Event[];
  /** The reply being written, by turn, until its `reply` event lands. */
  streaming: Map<number, string>;
  connected: boolean;
  /** The last `seq` loaded before the live stream: later events are new. */
  historyEnd: number;
}

export class ChatStream {
  private events: Event[] = [];
  private streaming = new Map<number, string>();
  private source: EventSource | null = null;
  private closed = false;
  private connected = false;
  private lastSeq = 0;
  private historyEnd = 0;

  constructor(
    private chatId: string,
    private onChange: (live: Live) => void,
  ) {}

  async start(): Promise<void> {
    for (;;) {
      const page = (await api.events(this.chatId, this.lastSeq)) as Event[];
      if (this.closed) return;
      for (const e of page) this.add(e);
      if (page.length < 10000) break;
    }
    this.historyEnd = this.lastSeq;
    this.emit();
    this.open();
  }

  close(): void {
    this.closed = true;
    this.source?.close();
  }

  private add(e: Event): boolean {
    if (typeof e.seq !== "number" || e.seq <= this.lastSeq) return false;
    this.lastSeq = e.seq;
    this.events.push(e);
    if (e.type === "reply") this.streaming.delete(Number(e.turn));
    if (e.type === "turn.ended") this.streaming.delete(Number(e.turn));
    return true;
  }

  private open(): void {
    if (this.closed) return;
    const source = new EventSource(`/api/chats/${this.chatId}/stream?after=${this.lastSeq}`);
    this.source = source;
    source.onopen = () => {
      this.connected = true;
      this.emit();
    };
    source.onmessage = (m) => {
      let e: Event;
      try {
        e = JSON.parse(m.data);
      } catch {
        return;
      }
      if (this.add(e)) this.emit();
    };
    source.addEventListener("delta", (m) => {
      try {
        const d = JSON.parse((m as MessageEvent).data) as { turn: number; text: string };
        this.streaming.set(d.turn, (this.streaming.get(d.turn) ?? "") + d.text);
        this.emit();
      } catch {
        /* a delta that doesn't read is only a moment of text */
      }
    });
    source.onerror = () => {
      this.connected = false;
      this.emit();
      // Closed for good (the chat is gone, or we were signed out): reopen
      // from where we are after a pause; a live one retries by itself.
      if (source.readyState === EventSource.CLOSED && !this.closed) {
        setTimeout(() => this.open(), 1500);
      }
    };
  }

  private emit(): void {
    this.onChange({
      events: this.events,
      streaming: new Map(this.streaming),
      connected: this.connected,
      historyEnd: this.historyEnd,
    });
  }
}
