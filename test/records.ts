// Writing records by hand (docs/FORMAT.md), as a careless or hostile writer
// could: the checksums recomputed, so only the loaders' checks stand between
// such bytes and a filter.
import { hash } from "../bindings/index.js";

/** The parts of a record: its type, version, parameters and payload. */
export interface RecordParts {
  version: number;
  type: number;
  params: Uint8Array;
  payload: Uint8Array;
}

/** A record's parts (no checks: the bytes are the test's own). */
export function parseRecord(bytes: Uint8Array): RecordParts {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const h = view.getUint32(8, true);
  const p = Number(view.getBigUint64(12 + h, true));
  return { version: view.getUint16(4, true), type: view.getUint8(6), params: bytes.slice(12, 12 + h), payload: bytes.slice(28 + h, 28 + h + p) };
}

/** A record with both checksums right for whatever parts it is given. */
export function buildRecord({ version, type, params, payload }: RecordParts): Uint8Array {
  const h = params.length;
  const out = new Uint8Array(12 + h + 16 + payload.length + 8);
  const view = new DataView(out.buffer);
  view.setUint32(0, 0x4b4d4c42, true);
  view.setUint16(4, version, true);
  view.setUint8(6, type);
  view.setUint32(8, h, true);
  out.set(params, 12);
  view.setBigUint64(12 + h, BigInt(payload.length), true);
  view.setBigUint64(20 + h, hash("xxh64", out.subarray(0, 20 + h)), true);
  out.set(payload, 28 + h);
  view.setBigUint64(28 + h + payload.length, hash("xxh64", payload), true);
  return out;
}

/** Recomputes both checksums of a record in place (its lengths as written); returns it. */
export function reseal(bytes: Uint8Array): Uint8Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const h = view.getUint32(8, true);
  if (12 + h + 16 > bytes.length) return bytes;
  view.setBigUint64(20 + h, hash("xxh64", bytes.subarray(0, 20 + h)), true);
  const p = view.getBigUint64(12 + h, true);
  if (p <= BigInt(bytes.length - 36 - h)) view.setBigUint64(28 + h + Number(p), hash("xxh64", bytes.subarray(28 + h, 28 + h + Number(p))), true);
  return bytes;
}

/**
 * The records one after another in `payload`, as a scalable record holds its
 * layers, each by the lengths its frame gives; a RangeError where they do not
 * fit the payload (a mutated one).
 */
export function recordsIn(payload: Uint8Array): Uint8Array[] {
  const records: Uint8Array[] = [];
  for (let at = 0; at < payload.length; ) {
    const h = new DataView(payload.buffer, payload.byteOffset + at).getUint32(8, true);
    const length = 36 + h + Number(new DataView(payload.buffer, payload.byteOffset + at + 12 + h).getBigUint64(0, true));
    if (!(length > 0 && at + length <= payload.length)) throw new RangeError("not a list of records");
    records.push(payload.slice(at, at + length));
    at += length;
  }
  return records;
}

/** The byte arrays one after another, in one (a scalable record's payload from its layers). */
export function joinBytes(list: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(list.reduce((sum, bytes) => sum + bytes.length, 0));
  list.reduce((at, bytes) => (out.set(bytes, at), at + bytes.length), 0);
  return out;
}

/** A record with its parameters changed by `edit` (a DataView over a copy of them), checksums recomputed. */
export function editParams(bytes: Uint8Array, edit: (params: DataView) => void): Uint8Array {
  const parts = parseRecord(bytes);
  edit(new DataView(parts.params.buffer));
  return buildRecord(parts);
}

/** Little-endian writer for parameter blocks built from scratch. */
export class Params {
  readonly #bytes: number[] = [];
  readonly #view = new DataView(new ArrayBuffer(8));
  #push(n: number): this {
    for (let i = 0; i < n; i++) this.#bytes.push(this.#view.getUint8(i));
    return this;
  }
  u8(value: number): this {
    this.#bytes.push(value & 0xff);
    return this;
  }
  u32(value: number): this {
    this.#view.setUint32(0, value, true);
    return this.#push(4);
  }
  u64(value: number | bigint): this {
    this.#view.setBigUint64(0, BigInt(value), true);
    return this.#push(8);
  }
  f64(value: number): this {
    this.#view.setFloat64(0, value, true);
    return this.#push(8);
  }
  /** The hashing block: strategy, count, two reserved zeros, seed, hash ids. */
  hashing(strategy: number, ids: number[], seed = 0): this {
    this.u8(strategy).u8(ids.length).u8(0).u8(0).u32(seed);
    for (const id of ids) this.u8(id);
    return this;
  }
  bytes(): Uint8Array {
    return Uint8Array.from(this.#bytes);
  }
}

/**
 * docs/FORMAT.md's binary fuse layouts for `size` keys: [segment length,
 * segment count, array length] each, the paper's and (from 8-slot segments)
 * the halved one of the same array.
 */
export function fuseLayouts(size: number): [number, number, number][] {
  const length = size <= 1 ? 4 : 2 ** Math.min(18, Math.max(2, Math.floor(Math.log(size) / Math.log(3.33) + 2.25)));
  const capacity = size <= 1 ? 0 : Math.floor(size * Math.max(1.125, 0.875 + (0.25 * Math.log(1e6)) / Math.log(size)) + 0.5);
  const count = Math.max(1, Math.ceil(capacity / length) - 2);
  const array = (count + 2) * length;
  const layouts: [number, number, number][] = [[length, count, array]];
  if (length >= 8) layouts.push([length / 2, 2 * count + 2, array]);
  return layouts;
}
