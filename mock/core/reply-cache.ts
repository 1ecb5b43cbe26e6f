// Replies worked out once per request body, for the mock is deterministic: a request it has seen
// is only stamped (id, created). Bodies are kept per space (the key, and the content header, which
// change the reply), so a lookup hashes the body text as it came, with nothing prepended.
const SPACE_MAX = 64;
const PER_SPACE_MAX = 512;
const SIGHTINGS_MAX = 4096;

export class ReplyCache<T> {
  private readonly spaces = new Map<string, Map<string, T>>();
  private readonly sightings = new Set<string>();

  get(space: string, text: string): T | undefined {
    return this.spaces.get(space)?.get(text);
  }

  /** Kept from its second sighting on: a stream of distinct requests (a test suite, real users)
   * would only fill the cache with replies that never come back, for the collector to trace. */
  offer(space: string, text: string, value: T): void {
    // The text is the set's member: its hash is the one the lookup just computed.
    if (!this.sightings.has(text)) {
      if (this.sightings.size >= SIGHTINGS_MAX) this.sightings.clear();
      this.sightings.add(text);
      return;
    }
    let replies = this.spaces.get(space);
    if (!replies) {
      // Content headers are the client's to choose: their number is bounded here.
      if (this.spaces.size >= SPACE_MAX) this.spaces.clear();
      this.spaces.set(space, (replies = new Map()));
    }
    if (replies.size >= PER_SPACE_MAX) replies.delete(replies.keys().next().value as string);
    replies.set(text, value);
  }
}
