/**
 * The 7-day revenue as an SVG bar chart with a value axis. Hand-written rather than a charting
 * library: seven bars and four grid lines do not earn a dependency, and a library would scale with
 * floats. Amounts stay integer micro-USDT (bigint) through the axis and the scaling; the only
 * number that is not an amount is a bar's pixel height, computed by bigint arithmetic at 1/100 px.
 */
import type { DailyRevenue } from "../../api-types.js";
import { displayAmount, toMicro } from "../../checkout/amounts.js";

const WIDTH = 720;
const HEIGHT = 260;
const LEFT = 72;
const RIGHT = 12;
const TOP = 22;
const BOTTOM = 30;
const PLOT_WIDTH = WIDTH - LEFT - RIGHT;
const PLOT_HEIGHT = HEIGHT - TOP - BOTTOM;
const TICKS = 4;

/** The smallest 1, 2 or 5 x 10^k micro-USDT step with TICKS steps covering `max` (0 for an empty week). */
function axisStep(max: bigint): bigint {
  if (max <= 0n) return 1_000_000n;
  const raw = (max + BigInt(TICKS) - 1n) / BigInt(TICKS);
  for (let power = 1n; ; power *= 10n) {
    for (const m of [1n, 2n, 5n]) if (m * power >= raw) return m * power;
  }
}

/** Pixel height of `value` on an axis topped at `axisMax`: the one place an amount becomes a float. */
function barHeight(value: bigint, axisMax: bigint): number {
  if (value <= 0n || axisMax <= 0n) return 0;
  return Number((value * BigInt(PLOT_HEIGHT * 100)) / axisMax) / 100;
}

/** `currencies`: those the amounts add up (the stats' `currencies`); two are named as a sum. */
export function RevenueChart({ daily, currencies = [] }: { daily: DailyRevenue[]; currencies?: string[] }) {
  const unit = currencies.length === 0 ? "USDT" : currencies.join(" + ");
  const values = daily.map((day) => toMicro(day.total_received) ?? 0n);
  const max = values.reduce((a, b) => (b > a ? b : a), 0n);
  const step = axisStep(max);
  const axisMax = step * BigInt(TICKS);
  const slot = PLOT_WIDTH / Math.max(daily.length, 1);
  const barWidth = Math.min(64, slot * 0.6);
  const baseline = TOP + PLOT_HEIGHT;
  const total = values.reduce((a, b) => a + b, 0n);
  return (
    <section className="panel wide">
      <h2>
        Received, last 7 days (UTC){currencies.length > 1 ? `, sum across ${currencies.join(" and ")}` : ""}
      </h2>
      <svg
        className="chart"
        data-testid="daily-chart"
        data-axis-max={displayAmount(axisMax)}
        data-plot-height={PLOT_HEIGHT}
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        role="img"
        aria-label={`${unit} received per day over the last 7 days, ${displayAmount(total)} in all`}
      >
        {Array.from({ length: TICKS + 1 }, (_, i) => {
          const tick = step * BigInt(i);
          const y = baseline - barHeight(tick, axisMax);
          return (
            <g key={i} className="chart-tick">
              <line
                x1={LEFT}
                x2={WIDTH - RIGHT}
                y1={y}
                y2={y}
                className={i === 0 ? "chart-axis" : "chart-grid"}
              />
              <text x={LEFT - 8} y={y + 4} textAnchor="end">
                {displayAmount(tick)}
              </text>
            </g>
          );
        })}
        <line x1={LEFT} x2={LEFT} y1={TOP} y2={baseline} className="chart-axis" />
        <text x={12} y={TOP - 8} className="chart-unit">
          {unit}
        </text>
        {daily.map((day, i) => {
          const value = values[i] ?? 0n;
          const height = barHeight(value, axisMax);
          const x = LEFT + slot * i + (slot - barWidth) / 2;
          const label = displayAmount(value);
          return (
            <g key={day.date} data-testid="daily-bar" data-date={day.date} data-amount={day.total_received}>
              <rect x={x} y={baseline - height} width={barWidth} height={height} className="chart-bar">
                <title>{`${day.date}: ${label} ${unit}`}</title>
              </rect>
              <text
                x={x + barWidth / 2}
                y={baseline - height - 5}
                textAnchor="middle"
                className="chart-value"
              >
                {label}
              </text>
              <text x={x + barWidth / 2} y={baseline + 18} textAnchor="middle">
                {day.date.slice(5)}
              </text>
            </g>
          );
        })}
      </svg>
    </section>
  );
}
