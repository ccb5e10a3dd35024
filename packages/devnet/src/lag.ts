// A listener's view of the chain `lag` blocks behind the head (for failover tests: a node that fell
// behind). Blocks, the head, the solidified head and transaction lookups stop at the lagged head;
// accounts, contract state and broadcasts stay those of the real chain (one state is kept, not one
// per block), which is enough to exercise a client that compares heads between nodes.
import type { Block, TxRecord } from "./blocks.js";
import type { Chain } from "./chain.js";

export function laggedChain(chain: Chain, lag: number): Chain {
  if (lag <= 0) return chain;
  const headNumber = (): number => Math.max(0, chain.head.number - lag);
  const solidNumber = (): number => Math.max(0, headNumber() - chain.solidifyAfter);
  const within = (b: Block | undefined): Block | undefined => (b && b.number <= headNumber() ? b : undefined);
  const overrides: Record<PropertyKey, () => unknown> = {
    head: () => chain.blocks[headNumber()],
    solidifiedNumber: solidNumber,
    blockByNum: () => (n: number) => within(chain.blockByNum(n)),
    blockById: () => (id: string) => within(chain.blockById(id)),
    txInBlock:
      () =>
      (id: string, solidOnly = false) => {
        const tx: TxRecord | undefined = chain.txInBlock(id);
        const top = solidOnly ? solidNumber() : headNumber();
        return tx && tx.blockNumber <= top ? tx : undefined;
      },
  };
  return new Proxy(chain, {
    get(target, property) {
      const override = overrides[property];
      if (override) return override();
      const value: unknown = Reflect.get(target, property, target);
      // Methods run on the real chain: state reads and broadcasts are not lagged.
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
