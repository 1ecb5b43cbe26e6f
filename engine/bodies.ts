// The bodies of a run's exchanges, held within a memory budget. Checks read an exchange's body
// long after it arrived (the checks that run last read every answer of the run), so none can be
// dropped; but a server that answers every chat with 8 MB under the cap would have a run hold a
// gigabyte. The most recently read bodies stay in memory up to the budget; the others wait in a
// temporary file, unlinked as soon as it is opened so that nothing outlives the run, and are read
// back when a check asks. A run of ordinary answers (kilobytes each) never reaches the budget.
import { closeSync, mkdtempSync, openSync, readSync, rmdirSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Bytes of bodies kept in memory: four answers at the default cap (--max-body, 8 MiB). */
export const RESIDENT_BODY_BYTES = 32 * 1024 * 1024;

/** One body, in memory or at its place in the file. */
export interface HeldBody {
  readonly length: number;
}

interface Slot extends HeldBody {
  buffer?: Buffer;
  /** Where it lies in the file, once written there. */
  at?: number;
}

export class BodyStore {
  /** The bodies in memory, least recently read first. */
  private readonly resident = new Set<Slot>();
  private residentBytes = 0;
  private file?: { fd: number; path?: string; end: number };
  /** The file could not be made or written (no space): bodies stay in memory. */
  private noFile = false;

  constructor(private readonly budget = RESIDENT_BODY_BYTES) {}

  hold(buffer: Buffer): HeldBody {
    const slot: Slot = { length: buffer.length, buffer };
    this.keep(slot);
    return slot;
  }

  read(held: HeldBody): Buffer {
    const slot = held as Slot;
    if (slot.buffer) {
      // Read again: the most recent.
      this.resident.delete(slot);
      this.resident.add(slot);
      return slot.buffer;
    }
    const buffer = Buffer.allocUnsafe(slot.length);
    let done = 0;
    while (done < slot.length) done += readSync(this.file!.fd, buffer, done, slot.length - done, slot.at! + done);
    slot.buffer = buffer;
    this.keep(slot);
    return buffer;
  }

  /** Bytes of bodies in memory now. */
  held(): number {
    return this.residentBytes;
  }

  close(): void {
    if (!this.file) return;
    closeSync(this.file.fd);
    if (this.file.path) rmSync(this.file.path, { force: true });
    this.file = undefined;
  }

  private keep(slot: Slot): void {
    this.resident.add(slot);
    this.residentBytes += slot.length;
    for (const oldest of this.resident) {
      if (this.residentBytes <= this.budget || oldest === slot) break;
      if (!this.spill(oldest)) break;
    }
  }

  /** Moves a body out of memory, writing it to the file the first time. False when it cannot. */
  private spill(slot: Slot): boolean {
    if (slot.at === undefined) {
      const file = this.open();
      if (!file) return false;
      try {
        let done = 0;
        while (done < slot.length) done += writeSync(file.fd, slot.buffer!, done, slot.length - done, file.end + done);
      } catch {
        this.noFile = true;
        return false;
      }
      slot.at = file.end;
      file.end += slot.length;
    }
    slot.buffer = undefined;
    this.resident.delete(slot);
    this.residentBytes -= slot.length;
    return true;
  }

  private open(): { fd: number; path?: string; end: number } | undefined {
    if (this.file || this.noFile) return this.file;
    try {
      const dir = mkdtempSync(join(tmpdir(), 'conformance-bodies-'));
      const path = join(dir, 'bodies');
      const fd = openSync(path, 'w+', 0o600);
      // Unlinked while open (POSIX): the file lives as long as the descriptor, however the run ends.
      let kept: string | undefined;
      try {
        unlinkSync(path);
        rmdirSync(dir);
      } catch {
        kept = path;
      }
      this.file = { fd, path: kept, end: 0 };
    } catch {
      this.noFile = true;
    }
    return this.file;
  }
}
