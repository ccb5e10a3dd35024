/**
 * The hot wallet's Stake 2.0 energy, for the wallet status (delegate mode, DESIGN.md 7b): TRX staked
 * for energy (what is lent out included), the energy it gives, how much of it could be lent now, how
 * much is lent to deposit addresses, and to how many. Read from the node, at most every 10 s.
 */
import type { HotWalletStake } from "../admin/api-shapes.js";
import type { Context } from "../context.js";
import { localSlot } from "../local-state.js";
import { formatSun } from "../money.js";
import { energyOfStake, type EnergyEconomy } from "../sweeps/sweep-plan.js";

const STAKE_CACHE_MS = 10_000;
// This process's last reading, shared by every request (each request has a context of its own).
const stakeCache = localSlot(
  "hot wallet stake",
  (): { last?: { address: string; at: number; stake: HotWalletStake } } => ({}),
);

export async function readHotWalletStake(
  ctx: Context,
  address: string,
  nodeDown = false,
): Promise<HotWalletStake> {
  const cache = ctx.local.get(stakeCache);
  const cached = cache.last;
  const now = ctx.clock.now().getTime();
  if (cached && cached.address === address && now - cached.at < STAKE_CACHE_MS) return cached.stake;
  const client = ctx.chain.client;
  try {
    if (nodeDown) throw new Error("the node did not answer the balance read");
    const [account, resource, delegatable, index] = await Promise.all([
      client.getAccount(address),
      client.getAccountResource(address),
      client.getCanDelegatedMaxSize(address, "ENERGY"),
      client.getDelegatedResourceAccountIndexV2(address),
    ]);
    const frozen = (account?.frozenV2 ?? [])
      .filter((f) => f.type === "ENERGY")
      .reduce((sum, f) => sum + BigInt(f.amount ?? 0), 0n);
    const lent = BigInt(
      Number(
        (account?.account_resource as { delegated_frozenV2_balance_for_energy?: number } | undefined)
          ?.delegated_frozenV2_balance_for_energy ?? 0,
      ),
    );
    const economy: EnergyEconomy = {
      totalEnergyLimit: BigInt(resource.TotalEnergyLimit ?? 0),
      totalEnergyWeight: BigInt(resource.TotalEnergyWeight ?? 0),
    };
    const stake: HotWalletStake = {
      staked_trx: formatSun(frozen + lent),
      energy_limit: Number(energyOfStake(frozen + lent, economy)),
      energy_available: Number(energyOfStake(BigInt(delegatable), economy)),
      energy_in_use: Number(energyOfStake(lent, economy)),
      delegations_open: index.toAccounts.length,
    };
    cache.last = { address, at: now, stake };
    return stake;
  } catch (error) {
    ctx.log.warn({ err: error }, "hot wallet stake unavailable");
    const last = cached?.address === address ? cached.stake : null;
    return {
      staked_trx: last?.staked_trx ?? "0.000000",
      energy_limit: last?.energy_limit ?? 0,
      energy_available: last?.energy_available ?? 0,
      energy_in_use: last?.energy_in_use ?? 0,
      delegations_open: last?.delegations_open ?? 0,
      stake_error: "TRON node unreachable",
    };
  }
}
