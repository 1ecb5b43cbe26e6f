// Replies worked out once per request body, for the mock is deterministic: a request it has seen
// is only stamped (id, created). Bodies are kept per space (the key, and the content header, which
// change the reply), so a lookup hashes the body text as it came, with nothing prepended.
/** Replies kept, over all spaces; bodies run to 16 KiB, so at most 8 MiB of keys. */
const REPLIES_MAX = 512;
/** Bodies seen once are held by their text: bounded by count and by size. */
const SIGHTINGS_MAX = 4096;
const SIGHTINGS_CHARS_MAX = 4 * 1024 * 1024;

export class ReplyCache<T> {
  private readonly spaces = new Map<string, Map<string, T>>();
  private replies = 0;
  private readonly sightings = new Set<string>();
  private sightingChars = 0;

  get(space: string, text: string): T | undefined {
    return this.spaces.get(space)?.get(text);
  }

  /** Kept from its second sighting on: a stream of distinct requests (a test suite, real users)
   * would only fill the cache with replies that never come back, for the collector to trace. */
  offer(space: string, text: string, value: T): void {
    // The text is the set's member: its hash is the one the lookup just computed.
    if (!this.sightings.has(text)) {
      if (this.sightings.size >= SIGHTINGS_MAX || this.sightingChars + text.length > SIGHTINGS_CHARS_MAX) {
        this.sightings.clear();
        this.sightingChars = 0;
      }
      this.sightings.add(text);
      this.sightingChars += text.length;
      return;
    }
    // Full: start again. Every reply can be worked out anew, and a working set comes back in two requests each.
    if (this.replies >= REPLIES_MAX) {
      this.spaces.clear();
      this.replies = 0;
    }
    let replies = this.spaces.get(space);
    if (!replies) this.spaces.set(space, (replies = new Map()));
    if (!replies.has(text)) this.replies++;
    replies.set(text, value);
  }
}
