/**
 * What postMessage may move instead of copy: the bytes' ArrayBuffer, only when the Buffer is
 * all of it. Node's small Buffers are slices of a shared pool, and moving the pool would empty
 * every other Buffer cut from it. The sender must not read `bytes` afterwards (it is emptied).
 */
export function transferList(bytes: Uint8Array): ArrayBuffer[] {
  const { buffer } = bytes;
  const whole = bytes.byteOffset === 0 && bytes.byteLength === buffer.byteLength;
  return whole && buffer instanceof ArrayBuffer ? [buffer] : [];
}
