// Traversal paths (AIP-160's `.` operator): `meta.color` is the field `meta` and the key path
// [`color`]. A bare word is a path when it starts as a field name does (a letter or `_`) and holds a
// dot; numbers (`2.5`), addresses (`10.0.0.1`) and quoted text stay values. A quoted part written
// right after a dot is one key, dots and spaces included: `meta."gift card"`.
import { span, type QueryIssue } from '../span.js'
import type { Name } from './ast.js'

const NAME_START = /^[A-Za-z_]/

/** A bare word that starts as a field name does and holds a dot: a traversal, not a value. */
export function isPath (word: string): boolean {
  return NAME_START.test(word) && word.includes('.')
}

/** One token of a path as written: a bare word (dots inside) or a quoted key (its lexer text). */
export interface PathPiece { readonly text: string, readonly start: number, readonly end: number, readonly quoted: boolean }

export type PathResult =
  | { readonly ok: true, readonly field: Name, readonly path: readonly Name[] }
  | { readonly ok: false, readonly issue: QueryIssue }

/**
 * The field and keys of a path written as adjacent pieces. A dot with no key after it (`a.`,
 * `a..b`) is an issue spanning that dot. Quoted keys keep only `\\` and `\*` escaped (see the
 * lexer): here both are the character itself.
 */
export function pathOf (pieces: readonly PathPiece[]): PathResult {
  const names: Name[] = []
  for (let p = 0; p < pieces.length; p++) {
    const piece = pieces[p]!
    if (piece.quoted) {
      names.push({ text: piece.text.replace(/\\(.)/g, '$1'), span: span(piece.start, piece.end) })
      continue
    }
    let offset = 0
    const parts = piece.text.split('.')
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i]!
      const at = piece.start + offset
      offset += part.length + 1
      // An empty part joins a quoted key: the one ending this word, or the one this word follows.
      const joinsNext = i === parts.length - 1 && pieces[p + 1]?.quoted === true
      const joinsPrevious = i === 0 && p > 0
      if (part !== '') {
        names.push({ text: part, span: span(at, at + part.length) })
      } else if (!joinsNext && !joinsPrevious) {
        return {
          ok: false,
          issue: {
            code: 'invalid-path',
            message: 'A dot in a field path must be followed by a key.',
            hint: 'Write field.key, as in meta.color, and quote a key holding dots or spaces: meta."a.b". To search for text with a dot, quote it: "v1.2".',
            span: span(at - 1, at),
          },
        }
      }
    }
  }
  const [field, ...path] = names
  return { ok: true, field: field!, path }
}
