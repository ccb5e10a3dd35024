/**
 * npx tsx bench/evm-sweep-cost.ts [rounds=3]     (also the first half of npm run bench:sweep-cost)
 *
 * Gas per EVM sweep on the Anvil devnet, both of DESIGN 16's modes, for USDT (6 decimals, `transfer`
 * returns nothing), USDC (6) and BSC's 18-decimal USDT, with ethers sending exactly what the service
 * sends (test/helpers/evm-sweeps.ts):
 * - top-up: the hot wallet sends the deposit address the gas its token transfer needs (the node's
 *   estimate + 10 %, at the base fee after two blocks of maximum rise plus the tip), then the deposit
 *   key moves the whole balance to the cold wallet. Shown: both transactions' gas, the estimate, and
 *   the ETH dust left on the address (in wei and in gas at the sweep's price). "later" is the same
 *   address paid and swept again: its top-up is reduced by the dust already there.
 * - 7702: the hot wallet sends one transaction to the deposit address; the first carries the
 *   deposit key's authorization to the sweeper (type 4), later ones are plain calls (the
 *   delegation persists). Nothing is sent to the address.
 * - baseline, in the same run: a plain token transfer between two funded accounts that both already
 *   hold the token (the sender keeps a remainder), the cheapest a token can move.
 * The cold wallet already holds each token. Each round uses new deposit addresses; the gas of the
 * rounds must agree (it is deterministic), else the bench fails. Every sweep must move the whole
 * balance to the cold wallet, and the dust on chain must equal top-up - sweep fee to the wei.
 * - the service, in the same run on the same devnet (bench/evm-sweep-cost-service.ts): `rounds`
 *   orders per mode and token paid to new deposit addresses and swept by the real sweeper and
 *   outbox, then what it recorded per sweep read back from its database (gas used from
 *   evm_transactions, wei from evm_sweep_legs), each checked against the node's receipt. Its gas
 *   must equal the direct measurement's first sweeps (the same transactions), else the bench fails.
 */
import { loadavg } from "node:os";
import { Wallet, parseEther, parseUnits, type TransactionReceipt } from "ethers";
import { startEvmDevnet } from "@stablegate/devnet";
import {
  authorization,
  automineProvider,
  deploySweeper,
  newWallet,
  sendToken,
  sweep7702,
  tokenBalance,
  tokenMoves,
  topUpSweep,
  type TopUpSweep,
} from "../test/helpers/evm-sweeps.js";
import { serviceSweeps, type RecordedSweep } from "./evm-sweep-cost-service.js";

const ROUNDS = Number(process.argv[2] ?? 3);
const devnet = await startEvmDevnet({ port: 0, blockTimeMs: 0 });
const provider = await automineProvider(devnet);
const faucet = new Wallet(devnet.faucetPrivateKey, provider);
const hot = await newWallet(provider, faucet, parseEther("100"));
const cold = Wallet.createRandom().address;
const sweeper = await deploySweeper(hot, cold);

const TOKENS = [
  { name: "USDT (6, no return)", address: devnet.usdtContract, decimals: 6 },
  { name: "USDC (6)", address: devnet.usdcContract, decimals: 6 },
  { name: "USDT (18)", address: devnet.usdt18Contract, decimals: 18 },
];

const lower = (a: string) => a.toLowerCase();

function check(ok: boolean, what: string): void {
  if (!ok) throw new Error(`check failed: ${what}`);
}

async function expectSwept(receipt: TransactionReceipt, token: string, from: string, amount: bigint) {
  const moves = JSON.stringify(tokenMoves(receipt).map((m) => [m.from, m.to, String(m.value)]));
  const whole = JSON.stringify([[from, lower(cold), String(amount)]]);
  check(receipt.status === 1 && moves === whole, `${token}: ${receipt.hash} moved ${moves}, not ${whole}`);
  check((await tokenBalance(provider, token, from)) === 0n, `${token}: ${from} still holds tokens`);
}

interface Round {
  baseline: bigint;
  topUpFirst: TopUpSweep;
  topUpLater: TopUpSweep;
  first7702: bigint;
  later7702: bigint;
}

async function round(token: (typeof TOKENS)[number]): Promise<Round> {
  const amount = parseUnits("100", token.decimals);
  const pay = async (to: string) => sendToken(faucet, token.address, to, amount);

  const sender = await newWallet(provider, faucet, parseEther("1"));
  await sendToken(faucet, token.address, sender.address, amount * 10n);
  // A zero byte in the receiver's address makes the transfer's calldata 12 gas cheaper: the
  // baseline's receiver has none, so every round's baseline is the same.
  let receiver = await newWallet(provider, faucet);
  while (/^(?:..)*00/.test(receiver.address.slice(2))) receiver = await newWallet(provider, faucet);
  await sendToken(faucet, token.address, receiver.address, 1n);
  const baseline = (await sendToken(sender, token.address, receiver.address, amount)).gasUsed;

  const topUpSweepChecked = async (deposit: Wallet): Promise<TopUpSweep> => {
    const dustBefore = await provider.getBalance(deposit.address);
    const r = await topUpSweep(hot, deposit, token.address, cold);
    await expectSwept(r.sweep, token.address, lower(deposit.address), amount);
    const fee = r.sweep.gasUsed * r.sweep.gasPrice;
    check(r.dustWei === dustBefore + r.topUpWei - fee, `${token.name}: dust is top-up - fee`);
    return r;
  };
  const deposit = await newWallet(provider, faucet);
  await pay(deposit.address);
  const topUpFirst = await topUpSweepChecked(deposit);
  await pay(deposit.address);
  const topUpLater = await topUpSweepChecked(deposit);

  const delegated = await newWallet(provider, faucet);
  await pay(delegated.address);
  const auth = await authorization(provider, delegated, sweeper);
  const first = await sweep7702(hot, delegated.address, token.address, auth);
  await expectSwept(first, token.address, lower(delegated.address), amount);
  await pay(delegated.address);
  const later = await sweep7702(hot, delegated.address, token.address);
  await expectSwept(later, token.address, lower(delegated.address), amount);
  check((await provider.getBalance(delegated.address)) === 0n, "no ETH on a 7702 deposit address");

  return { baseline, topUpFirst, topUpLater, first7702: first.gasUsed, later7702: later.gasUsed };
}

const gasOf = (r: TopUpSweep) => r.topUp.gasUsed + r.sweep.gasUsed;
const fmt = (n: bigint | number) => Number(n).toLocaleString("en-US");
const pct = (n: bigint, base: bigint) =>
  `${n > base ? "+" : ""}${((Number(n - base) / Number(base)) * 100).toFixed(0)} %`;

function topUpCell(r: TopUpSweep): string {
  return `${fmt(r.topUp.gasUsed)} + ${fmt(r.sweep.gasUsed)} = ${fmt(gasOf(r))}`;
}

function dustCell(r: TopUpSweep): string {
  return `${fmt(r.dustWei)} wei (${fmt(r.dustWei / r.sweep.gasPrice)} gas)`;
}

try {
  for (const token of TOKENS) await sendToken(faucet, token.address, cold, 1n);
  const rows = [];
  for (const token of TOKENS) {
    const rounds: Round[] = [];
    for (let i = 0; i < ROUNDS; i++) rounds.push(await round(token));
    const figures = (r: Round) =>
      [
        r.baseline,
        gasOf(r.topUpFirst),
        gasOf(r.topUpLater),
        r.first7702,
        r.later7702,
        r.topUpFirst.estimate,
      ].join();
    check(new Set(rounds.map(figures)).size === 1, `${token.name}: gas differs between rounds`);
    rows.push({ token, r: rounds[0] as Round, rounds });
  }

  const head = [
    "token",
    "plain transfer (baseline)",
    "top-up first: gas send + sweep",
    "top-up later",
    "7702 first (type 4)",
    "7702 later",
    "top-up estimate / limit",
    "dust left, first / later",
  ];
  const body = rows.map(({ token, r }) => [
    token.name,
    fmt(r.baseline),
    `${topUpCell(r.topUpFirst)} (${pct(gasOf(r.topUpFirst), r.baseline)})`,
    topUpCell(r.topUpLater),
    `${fmt(r.first7702)} (${pct(r.first7702, r.baseline)})`,
    `${fmt(r.later7702)} (${pct(r.later7702, r.baseline)})`,
    `${fmt(r.topUpFirst.estimate)} / ${fmt(r.topUpFirst.gasLimit)}`,
    `${dustCell(r.topUpFirst)} / ${dustCell(r.topUpLater)}`,
  ]);
  console.log(`| ${head.join(" | ")} |`);
  console.log(`|${head.map(() => " --- ").join("|")}|`);
  for (const line of body) console.log(`| ${line.join(" | ")} |`);

  // The service's own sweeps, as its database recorded them from the receipts.
  const serviceHot = await newWallet(provider, faucet, parseEther("100"));
  const service = [];
  for (const { token, r } of rows) {
    const sweeps = await serviceSweeps({
      devnet,
      provider,
      faucet,
      hot: serviceHot,
      cold,
      sweeper,
      token,
      sweepsPerMode: ROUNDS,
    });
    const of = (mode: RecordedSweep["mode"]) => sweeps.filter((x) => x.mode === mode);
    const gas = (x: RecordedSweep) => x.topUpGas + x.sweepGas;
    const wei = (x: RecordedSweep) => x.topUpWei + x.sweepWei;
    for (const x of of("topup"))
      check(
        x.topUpGas === r.topUpFirst.topUp.gasUsed && x.sweepGas === r.topUpFirst.sweep.gasUsed,
        `${token.name}: the service's top-up sweep used ${x.topUpGas} + ${x.sweepGas} gas, the direct one ${topUpCell(r.topUpFirst)}`,
      );
    for (const x of of("7702"))
      check(
        x.topUpGas === 0n && x.sweepGas === r.first7702,
        `${token.name}: the service's 7702 sweep used ${gas(x)} gas, the direct one ${r.first7702}`,
      );
    service.push({ token, r, topup: of("topup"), d7702: of("7702"), gas, wei });
  }
  const avg = (xs: RecordedSweep[], f: (x: RecordedSweep) => bigint) =>
    xs.reduce((sum, x) => sum + f(x), 0n) / BigInt(xs.length);
  const serviceHead = [
    "token",
    "plain transfer (baseline)",
    "direct top-up first",
    "service top-up, recorded: gas send + sweep",
    "direct 7702 first",
    "service 7702, recorded gas",
    "service spent per sweep, top-up / 7702 (wei)",
    "service dust per top-up sweep (wei)",
  ];
  console.log("");
  console.log(`| ${serviceHead.join(" | ")} |`);
  console.log(`|${serviceHead.map(() => " --- ").join("|")}|`);
  for (const { token, r, topup, d7702, gas, wei } of service) {
    const first = topup[0] as RecordedSweep;
    const line = [
      token.name,
      fmt(r.baseline),
      fmt(gasOf(r.topUpFirst)),
      `${fmt(first.topUpGas)} + ${fmt(first.sweepGas)} = ${fmt(gas(first))} (${pct(gas(first), r.baseline)})`,
      fmt(r.first7702),
      `${fmt(gas(d7702[0] as RecordedSweep))} (${pct(gas(d7702[0] as RecordedSweep), r.baseline)})`,
      `${fmt(avg(topup, wei))} / ${fmt(avg(d7702, wei))}`,
      fmt(avg(topup, (x) => x.dustWei)),
    ];
    console.log(`| ${line.join(" | ")} |`);
  }
  console.log(
    JSON.stringify(
      {
        bench: "evm-sweep-cost",
        rounds: ROUNDS,
        load_average: loadavg().map((l) => Number(l.toFixed(2))),
        tokens: rows.map(({ token, r, rounds }) => ({
          token: token.name,
          baseline_plain_transfer_gas: r.baseline,
          topup_first: { send_gas: r.topUpFirst.topUp.gasUsed, sweep_gas: r.topUpFirst.sweep.gasUsed },
          topup_later: { send_gas: r.topUpLater.topUp.gasUsed, sweep_gas: r.topUpLater.sweep.gasUsed },
          topup_estimate_gas: r.topUpFirst.estimate,
          topup_gas_limit: r.topUpFirst.gasLimit,
          dust_wei_per_round: rounds.map((x) => [x.topUpFirst.dustWei, x.topUpLater.dustWei]),
          dust_gas_at_sweep_price_per_round: rounds.map((x) =>
            [x.topUpFirst, x.topUpLater].map((t) => t.dustWei / t.sweep.gasPrice),
          ),
          sweep7702_first_gas: r.first7702,
          sweep7702_later_gas: r.later7702,
        })),
        service: service.map(({ token, topup, d7702, gas, wei }) => ({
          token: token.name,
          recorded: Object.fromEntries(
            (
              [
                ["topup", topup],
                ["7702", d7702],
              ] as const
            ).map(([mode, xs]) => [
              mode,
              {
                sweeps: xs.length,
                gas_per_sweep: xs.map(gas),
                send_gas_per_sweep: xs.map((x) => x.topUpGas),
                sweep_gas_per_sweep: xs.map((x) => x.sweepGas),
                wei_per_sweep: xs.map(wei),
                dust_wei_per_sweep: xs.map((x) => x.dustWei),
              },
            ]),
          ),
        })),
      },
      (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v),
      2,
    ),
  );
} finally {
  await devnet.close();
}
