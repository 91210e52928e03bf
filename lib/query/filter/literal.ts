// The characters of a literal as the checker reads them: in quoted strings `\\` and `\*` are
// escapes (the lexer kept them), and an unescaped `*` is a wildcard in quoted and bare text alike.
import type { LiteralValue } from './ast.js'

interface LiteralPart { readonly char: string, readonly wildcard: boolean }

function parts (value: LiteralValue): LiteralPart[] {
  const out: LiteralPart[] = []
  const text = value.text
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (value.quoted && c === '\\' && i + 1 < text.length) {
      out.push({ char: text[++i]!, wildcard: false })
    } else {
      out.push({ char: c, wildcard: c === '*' })
    }
  }
  return out
}

/** The literal's text, escapes resolved. */
export function literalText (value: LiteralValue): string {
  return parts(value).map((p) => p.char).join('')
}

export function hasWildcard (value: LiteralValue): boolean {
  return parts(value).some((p) => p.wildcard)
}

/** A LIKE pattern: wildcards become `%`, and `%`, `_` and `\` are escaped. */
export function likePattern (value: LiteralValue, surround: boolean): string {
  const body = parts(value).map((p) => p.wildcard ? '%' : p.char.replace(/[\\%_]/g, (m) => '\\' + m)).join('')
  return surround ? `%${body}%` : body
}
