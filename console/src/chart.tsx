// A view's chart, drawn as SVG by this small component (no chart library: docs/decisions.md). The
// counts come from the aggregate route that fits x (chart-data.ts), drawn as bars (or a line for
// `type: 'line'`), and are also a table for screen readers, so nothing is only in the picture.
import { useEffect, useId, useLayoutEffect, useRef, useState } from 'preact/hooks'
import type { Session } from './api.js'
import { labelOf, type ChartMeta, type Meta } from './meta.js'
import { browserZone, chartPath, pointsOf, sourceOf, tickStep, type Point, type Source } from './chart-data.js'

const HEIGHT = 200
const MARGIN = { top: 18, right: 8, bottom: 34, left: 40 }
/** About how wide one x label may be, in pixels: labels further apart than this are skipped. */
const LABEL_WIDTH = 76

/** The chart of `resource`'s view, if it has one the caller may draw (x must be filterable for the routes). */
/** The view's chart; on a list screen, `filter` is the list's, so the chart counts what the list shows. */
export function ViewChart ({ session, meta, resource, filter = '' }: { readonly session: Session, readonly meta: Meta, readonly resource: string, readonly filter?: string }) {
  const chart = meta.views?.[resource]?.chart
  const field = chart === undefined ? undefined : meta.resources[resource]?.fields[chart.x]
  if (chart === undefined || field === undefined || field.filterable === false) return null
  return <Chart session={session} resource={resource} chart={chart} source={sourceOf(field.type)} filter={filter} />
}

function titleOf (resource: string, chart: ChartMeta, source: Source): string {
  return source === 'series' ? `${labelOf(resource)} over time (${labelOf(chart.x).toLowerCase()})` : `${labelOf(resource)} by ${labelOf(chart.x).toLowerCase()}`
}

function Chart ({ session, resource, chart, source, filter }: { readonly session: Session, readonly resource: string, readonly chart: ChartMeta, readonly source: Source, readonly filter: string }) {
  const [points, setPoints] = useState<readonly Point[] | undefined>()
  const [error, setError] = useState<string | undefined>()
  const id = useId()
  useEffect(() => {
    let current = true
    const zone = browserZone()
    session.get<unknown>(chartPath(resource, chart, source, zone, filter))
      .then((answer) => { if (current) { setPoints(pointsOf(source, answer, zone)); setError(undefined) } })
      .catch((err: unknown) => { if (current) setError(err instanceof Error ? err.message : String(err)) })
    return () => { current = false }
  }, [session, resource, chart.x, source, filter])

  const title = titleOf(resource, chart, source)
  const line = chart.type === 'line'
  return (
    <figure class="chart" aria-labelledby={`${id}-title`} data-resource={resource} data-source={source}>
      <figcaption id={`${id}-title`}>{title}</figcaption>
      {error !== undefined && <p class="error" role="alert">{error}</p>}
      {error === undefined && points === undefined && <p>Loading the chart…</p>}
      {points?.length === 0 && <p>No records to chart.</p>}
      {points !== undefined && points.length > 0 && (
        <>
          <Plot points={points} line={line} label={`${line ? 'Line' : 'Bar'} chart: ${title}, counting records. The numbers follow as a table.`} />
          <div class="chart-numbers"><table>
            <caption>{title}: the numbers</caption>
            <thead><tr><th scope="col">{labelOf(chart.x)}</th><th scope="col" class="num">Records</th></tr></thead>
            <tbody>{points.map((point, i) => <tr key={i}><th scope="row">{point.label}</th><td class="num">{point.count.toLocaleString()}</td></tr>)}</tbody>
          </table></div>
        </>
      )}
    </figure>
  )
}

function Plot ({ points, line, label }: { readonly points: readonly Point[], readonly line: boolean, readonly label: string }) {
  const box = useRef<HTMLDivElement>(null)
  const [width, setWidth] = useState(0)
  // Drawn in the box's own pixels, so text keeps its size on a phone instead of shrinking with a viewBox.
  useLayoutEffect(() => {
    const element = box.current
    if (element === null) return
    const observer = new ResizeObserver(([entry]) => { if (entry !== undefined) setWidth(Math.floor(entry.contentRect.width)) })
    observer.observe(element)
    return () => { observer.disconnect() }
  }, [])

  const plotWidth = Math.max(0, width - MARGIN.left - MARGIN.right)
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom
  const step = tickStep(Math.max(...points.map((p) => p.count)))
  const top = Math.max(step, Math.ceil(Math.max(...points.map((p) => p.count)) / step) * step)
  const scale = plotHeight / top
  const band = plotWidth / points.length
  const yOf = (count: number): number => MARGIN.top + plotHeight - count * scale
  const xOf = (i: number): number => MARGIN.left + (i + 0.5) * band
  const labelEvery = Math.max(1, Math.ceil(LABEL_WIDTH / Math.max(band, 1)))
  const maxChars = Math.max(3, Math.floor(band * labelEvery / 7))
  const ticks = Array.from({ length: top / step + 1 }, (_, i) => i * step)
  return (
    <div class="plot" ref={box}>
      {width > 0 && (
        <svg width={width} height={HEIGHT} viewBox={`0 0 ${width} ${HEIGHT}`} role="img" aria-label={label}>
          {ticks.map((tick) => (
            <g key={tick} class="tick">
              <line x1={MARGIN.left} x2={width - MARGIN.right} y1={yOf(tick)} y2={yOf(tick)} />
              <text x={MARGIN.left - 6} y={yOf(tick)} dy="0.32em" text-anchor="end">{tick.toLocaleString()}</text>
            </g>
          ))}
          {line && <polyline class="line" points={points.map((p, i) => `${xOf(i)},${yOf(p.count)}`).join(' ')} />}
          {points.map((point, i) => line
            ? <circle key={i} class="mark" cx={xOf(i)} cy={yOf(point.count)} r={3.5} data-label={point.label} data-count={point.count}><title>{`${point.label}: ${point.count}`}</title></circle>
            : <rect key={i} class="mark" x={MARGIN.left + i * band + band * 0.15} width={band * 0.7} y={yOf(point.count)} height={point.count * scale} data-label={point.label} data-count={point.count}><title>{`${point.label}: ${point.count}`}</title></rect>)}
          {!line && band >= 18 && points.map((point, i) => <text key={i} class="count" x={xOf(i)} y={yOf(point.count) - 4} text-anchor="middle">{point.count.toLocaleString()}</text>)}
          {points.map((point, i) => i % labelEvery === 0 && (
            <text key={i} class="label" x={xOf(i)} y={HEIGHT - MARGIN.bottom + 16} text-anchor="middle">{point.label.length > maxChars ? `${point.label.slice(0, maxChars - 1)}…` : point.label}</text>
          ))}
        </svg>
      )}
    </div>
  )
}
