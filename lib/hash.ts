// FNV-1a over UTF-16 code units: a fast, non-cryptographic hash for telling texts apart where
// nothing is at stake if two collide (ETags, a cache's doorkeeper). A leaf.

export const FNV_OFFSET = 0x811c9dc5
export const FNV_PRIME = 0x01000193

/** The 32-bit FNV-1a of `text`, as a signed 32-bit integer. */
export function fnv1a (text: string): number {
  let hash = FNV_OFFSET
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), FNV_PRIME)
  return hash
}
