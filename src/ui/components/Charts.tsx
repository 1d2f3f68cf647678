import { memo, startTransition, useEffect, useMemo, useState } from 'react';
import { Line, LineChart, ReferenceLine, XAxis, YAxis } from 'recharts';
import { download } from '../download';
import { CHART_INTERVAL_MS, metricsToCsv, metricsToJsonl, smooth, useLab, type MetricPoint } from '../store';

const charts = [
  { name: 'avg_reward', title: 'average reward' },
  { name: 'compression_rate', title: 'compression rate (lower is better)', references: true },
  { name: 'accuracy', title: 'accuracy' },
  { name: 'policy_loss', title: 'policy loss' },
  { name: 'entropy', title: 'entropy' },
  { name: 'program_bits', title: 'bits of correct programs' },
];

const Chart = memo(function Chart(props: { title: string; points: MetricPoint[]; x: 'step' | 'wallMs'; references?: { gzip?: number; lzma?: number } }) {
  const data = useMemo(() => {
    // At most ~150 drawn points per chart; the store keeps more for export.
    const stride = Math.max(1, Math.ceil(props.points.length / 150));
    return props.points.filter((_, i) => i % stride === 0 || i === props.points.length - 1).map((p) => ({ x: props.x === 'step' ? p.step : p.wallMs / 1000, y: p.value }));
  }, [props.points, props.x]);
  return (
    <figure className="chart" data-testid={`chart-${props.title}`} data-points={props.points.length}>
      <figcaption>{props.title}</figcaption>
      <LineChart width={300} height={150} data={data} margin={{ top: 4, right: 8, bottom: 0, left: 0 }}>
          <XAxis dataKey="x" type="number" domain={['dataMin', 'dataMax']} tickFormatter={(v: number) => (props.x === 'step' ? String(v) : `${v.toFixed(0)}s`)} />
          <YAxis width={48} domain={['auto', 'auto']} tickFormatter={(v: number) => v.toPrecision(3)} />
          <Line type="monotone" dataKey="y" dot={false} isAnimationActive={false} stroke="#3b6fd8" />
          {props.references?.gzip !== undefined && <ReferenceLine y={props.references.gzip} stroke="#c0392b" strokeDasharray="4 4" label="gzip" />}
          {props.references?.lzma !== undefined && <ReferenceLine y={props.references.lzma} stroke="#8e44ad" strokeDasharray="4 4" label="LZMA" />}
      </LineChart>
    </figure>
  );
});

/**
 * One chart that takes its metric from the store on its own schedule: the charts redraw in turn,
 * one per commit, so no single main-thread task draws all of them (recharts costs ~50 ms a chart).
 */
function StaggeredChart(props: { index: number; count: number; name: string; title: string; weight: number; x: 'step' | 'wallMs'; references?: { gzip?: number; lzma?: number } }) {
  const [points, setPoints] = useState<MetricPoint[]>(() => useLab.getState().series[props.name] ?? []);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout>;
    const offset = (CHART_INTERVAL_MS / props.count) * props.index;
    const tick = () => {
      // A transition render is interruptible: React yields to the browser between components.
      startTransition(() => setPoints((current) => useLab.getState().series[props.name] ?? current));
      timer = setTimeout(tick, CHART_INTERVAL_MS);
    };
    timer = setTimeout(tick, offset);
    return () => clearTimeout(timer);
  }, [props.name, props.index, props.count]);
  const smoothed = useMemo(() => smooth(points, props.weight), [points, props.weight]);
  return <Chart title={props.title} points={smoothed} x={props.x} references={props.references} />;
}

export function Charts() {
  const evaluations = useLab((s) => s.evaluations);
  const [weight, setWeight] = useState(0.6);
  const [x, setX] = useState<'step' | 'wallMs'>('step');
  const last = evaluations.at(-1);
  const gzipPoints = useLab((s) => s.series.gzip_rate);
  const gzip = last?.gzipRate ?? gzipPoints?.at(-1)?.value;
  return (
    <section className="panel charts" data-testid="charts">
      <div className="chart-controls">
        <label>
          smoothing <input type="range" min={0} max={0.99} step={0.01} value={weight} onChange={(e) => setWeight(Number(e.target.value))} data-testid="smoothing" /> {weight.toFixed(2)}
        </label>
        <label>
          x axis{' '}
          <select value={x} onChange={(e) => setX(e.target.value as 'step' | 'wallMs')}>
            <option value="step">step</option>
            <option value="wallMs">wall time</option>
          </select>
        </label>
        <button onClick={() => download('metrics.csv', metricsToCsv(useLab.getState().series), 'text/csv')}>Export CSV</button>
        <button onClick={() => download('metrics.jsonl', metricsToJsonl(useLab.getState().series), 'application/jsonl')}>Export JSONL</button>
      </div>
      <div className="chart-grid">
        {charts.map((chart, index) => (
          <StaggeredChart
            key={chart.name}
            index={index}
            count={charts.length}
            name={chart.name}
            title={chart.title}
            weight={weight}
            x={x}
            references={chart.references ? { gzip, lzma: last?.lzmaRate } : undefined}
          />
        ))}
      </div>
    </section>
  );
}
