// JSON bodies that name a member twice are refused: JSON.parse keeps the last, another parser
// (a proxy, a WAF, an audit tool) the first, and a body that means two things to two readers is
// an attack, not a request. Run on text JSON.parse has already accepted, so only strings need
// care; one pass, no allocation but the keys of each object.

/** Whether any object in this (valid) JSON text has two members of the same name. */
export function hasDuplicateKeys (text: string): boolean {
  const objects: Array<Set<string> | undefined> = []
  let expectKey = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x7b) { // {
      objects.push(new Set())
      expectKey = true
    } else if (c === 0x5b) { // [
      objects.push(undefined)
      expectKey = false
    } else if (c === 0x7d || c === 0x5d) { // } ]
      objects.pop()
      expectKey = false
    } else if (c === 0x2c) { // ,
      expectKey = objects.at(-1) !== undefined
    } else if (c === 0x22) { // "
      const start = i
      let escaped = false
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i)
        if (d === 0x5c) { // backslash: the next character is escaped
          escaped = true
          i++
        } else if (d === 0x22) {
          break
        }
      }
      if (expectKey) {
        // "a" and "\u0061" are the same name: escapes are decoded before names are compared.
        const key = escaped ? JSON.parse(text.slice(start, i + 1)) as string : text.slice(start + 1, i)
        const keys = objects.at(-1)!
        if (keys.has(key)) return true
        keys.add(key)
        expectKey = false
      }
    }
  }
  return false
}
