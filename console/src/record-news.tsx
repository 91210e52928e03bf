// What the change feed told a record screen that it cannot simply show in place: someone else
// saved or deleted the record while the user was editing it (their version can be loaded, which
// drops the user's changes; a save instead meets the 412 and shows both, conflict.tsx), or the
// record is no longer the caller's to see at all. Announced as an alert, the focus left where it is.

/** `gone`: deleted for good (`deleted`), or changed out of the caller's reach. */
export type News<T> =
  | { readonly kind: 'saved' | 'deleted', readonly theirs: T }
  | { readonly kind: 'gone', readonly deleted: boolean }

const SAID = {
  saved: ['Someone else saved this record.', 'Load their version (your changes are dropped), or save yours to see both side by side.'],
  deleted: ['Someone else deleted this record.', 'Your changes can no longer be saved.'],
  gone: ['Someone else deleted this record.', 'It is no longer there to see or change.'],
  left: ['Someone else changed this record out of your reach.', 'It is no longer yours to see or change.'],
} as const

export function RecordNews<T> ({ news, onLoad }: { readonly news: News<T>, readonly onLoad: (theirs: T) => void }) {
  const [what, then] = SAID[news.kind === 'gone' && !news.deleted ? 'left' : news.kind]
  return (
    <div class="elsewhere" role="alert">
      <p><strong>{what}</strong> {then}</p>
      {news.kind !== 'gone' && <button type="button" onClick={() => { onLoad(news.theirs) }}>Load their version</button>}
    </div>
  )
}
