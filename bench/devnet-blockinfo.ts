// Latency of wallet/gettransactioninfobyblocknum on the devnet for 1,200 loaded blocks of
// mainnet-shaped traffic (300 transactions, 100 USDT transfers each).
// Run: npx tsx bench/devnet-blockinfo.ts [blocks]
import { startDevnet } from "@stablegate/devnet";

const blocks = Number(process.argv[2] ?? 1200);
const devnet = await startDevnet({ blockTimeMs: 0, quiet: true });
try {
  const t0 = performance.now();
  const res = await fetch(devnet.url + "/devnet/load", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ blocks }),
  });
  const load = (await res.json()) as { from: number; to: number; transactions: number };
  console.log(
    `loaded ${blocks} blocks (${load.transactions} transactions) in ${Math.round(performance.now() - t0)} ms`,
  );

  const times: number[] = [];
  let bytes = 0;
  for (let n = load.from; n <= load.to; n++) {
    const t = performance.now();
    const r = await fetch(devnet.url + "/wallet/gettransactioninfobyblocknum", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ num: n }),
    });
    const text = await r.text();
    times.push(performance.now() - t);
    bytes += text.length;
  }
  times.sort((a, b) => a - b);
  const pct = (p: number): string =>
    (times[Math.min(times.length - 1, Math.floor(times.length * p))] as number).toFixed(2);
  console.log(
    `gettransactioninfobyblocknum over HTTP, ${times.length} blocks, ${Math.round(bytes / times.length / 1024)} KiB each: ` +
      `p50 ${pct(0.5)} ms, p99 ${pct(0.99)} ms, max ${(times[times.length - 1] as number).toFixed(2)} ms`,
  );
} finally {
  await devnet.close();
}
