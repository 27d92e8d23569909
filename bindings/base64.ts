// Base64 to bytes and back, in Node and in browsers. Node's Buffer does both in
// native code. The loop browsers need, run over the wasm core's 136 KB at
// import, woke the optimising compiler: importing bloomkit then took 4 MB
// (Node 20) and 8 MB (Node 24) more peak memory than with Buffer, which every
// CLI run and worker thread paid.

interface NodeBufferClass {
  from(text: string, encoding: "base64"): Uint8Array;
  from(buffer: ArrayBufferLike, offset: number, length: number): { toString(encoding: "base64"): string };
}

/** Node's Buffer, looked up at each call: a bundle may run where it is defined later, or not at all. */
const nodeBuffer = () => (globalThis as { Buffer?: NodeBufferClass }).Buffer;

/**
 * Bytes of base64 text the caller has checked (Buffer and atob each skip or
 * refuse different mistakes). Typed as a plain Uint8Array: this declaration
 * ships, and TypeScript before 5.7 cannot read a typed array's type argument.
 */
export function base64ToBytes(text: string): Uint8Array {
  const NodeBuffer = nodeBuffer();
  if (NodeBuffer) {
    const bytes = NodeBuffer.from(text, "base64");
    return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** Base64 of bytes (standard alphabet, padded). */
export function bytesToBase64(bytes: Uint8Array): string {
  const NodeBuffer = nodeBuffer();
  if (NodeBuffer) return NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
  return btoa(binaryString(bytes));
}

/** Bytes as a string of one character each (U+0000–U+00FF), as btoa takes them. */
export function binaryString(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return binary;
}
