// A TRC20 token (TetherToken-like) emulated natively: the calls a payment flow makes, with mainnet-like
// energy, Transfer/Approval logs and Error(string) reverts.
import {
  APPROVAL_TOPIC,
  TRANSFER_TOPIC,
  VIEW_METHODS,
  addressTopic,
  decodeTrc20Call,
  encodeBool,
  encodeRevert,
  encodeString,
  encodeUint,
  wordToEvmAddress,
} from "./abi.js";
import { ENERGY } from "./resources.js";
import { SUPPLY_KEY, allowanceKey, balanceKey, type State, type Token } from "./state.js";

export interface Log {
  /** 20-byte hex without 41, as java-tron prints log.address. */
  address: string;
  topics: string[];
  data: string;
}

export interface CallOutcome {
  status: "SUCCESS" | "REVERT";
  energy: bigint;
  /** Return data on success, revert payload on REVERT. */
  output: string;
  logs: Log[];
  /** State writes; run only when the caller can pay `energy`. */
  commit: () => void;
}

/** Storage reads, so a call can run against the head state or the solidified view. */
export type SlotReader = (tokenEvm: string, key: string) => bigint;

const MAX_UINT256 = (1n << 256n) - 1n;
const noop = (): void => {};

function revert(message: string): CallOutcome {
  return { status: "REVERT", energy: ENERGY.revert, output: encodeRevert(message), logs: [], commit: noop };
}

/** Runs `data` against the token as `callerEvm`. Writes go to `state` only through `commit`. */
export function callToken(
  state: State,
  token: Token,
  callerEvm: string,
  data: string,
  read: SlotReader = (t, k) => state.getSlot(t, k),
): CallOutcome {
  const call = decodeTrc20Call(data);
  if (!call) return { status: "REVERT", energy: ENERGY.revert, output: "", logs: [], commit: noop };
  const t = token.evm;
  const bal = (holder: string): bigint => read(t, balanceKey(holder));
  const view = (output: string): CallOutcome => ({
    status: "SUCCESS",
    energy: ENERGY.view,
    output,
    logs: [],
    commit: noop,
  });
  const [w0 = 0n, w1 = 0n, w2 = 0n] = call.words;
  switch (call.method) {
    case "name":
      return view(encodeString(token.name));
    case "symbol":
      return view(encodeString(token.symbol));
    case "decimals":
      return view(encodeUint(BigInt(token.decimals)));
    case "totalSupply":
      return view(encodeUint(read(t, SUPPLY_KEY)));
    case "balanceOf":
      return view(encodeUint(bal(wordToEvmAddress(w0))));
    case "allowance":
      return view(encodeUint(read(t, allowanceKey(wordToEvmAddress(w0), wordToEvmAddress(w1)))));
    case "approve": {
      const spender = wordToEvmAddress(w0);
      if (w1 > MAX_UINT256) return revert("ERC20: invalid amount");
      return {
        status: "SUCCESS",
        energy: ENERGY.approve,
        output: encodeBool(true),
        logs: [
          {
            address: t,
            topics: [APPROVAL_TOPIC, addressTopic(callerEvm), addressTopic(spender)],
            data: encodeUint(w1),
          },
        ],
        commit: () => state.setSlot(t, allowanceKey(callerEvm, spender), w1),
      };
    }
    case "transfer":
      return transfer(state, token, callerEvm, wordToEvmAddress(w0), w1, bal, null);
    case "transferFrom": {
      const from = wordToEvmAddress(w0);
      const allowed = read(t, allowanceKey(from, callerEvm));
      if (allowed < w2) return revert("ERC20: insufficient allowance");
      return transfer(state, token, from, wordToEvmAddress(w1), w2, bal, { spender: callerEvm, allowed });
    }
  }
}

function transfer(
  state: State,
  token: Token,
  from: string,
  to: string,
  value: bigint,
  bal: (holder: string) => bigint,
  viaAllowance: { spender: string; allowed: bigint } | null,
): CallOutcome {
  if (to === "0".repeat(40)) return revert("ERC20: transfer to the zero address");
  const fromBal = bal(from);
  if (fromBal < value) return revert("ERC20: transfer amount exceeds balance");
  const toBal = bal(to);
  // Writing a zero slot to non-zero is what makes a first payment to an address cost twice as much.
  const fresh = toBal === 0n && value > 0n && from !== to;
  const energy = viaAllowance
    ? fresh
      ? ENERGY.transferFromToNewHolder
      : ENERGY.transferFromToHolder
    : fresh
      ? ENERGY.transferToNewHolder
      : ENERGY.transferToHolder;
  const t = token.evm;
  return {
    status: "SUCCESS",
    energy,
    // Mainnet's TetherToken returns false (a zero word) from a successful transfer; the devnet's USDT
    // does the same, so clients that trust the return value fail here as they would there.
    output: encodeBool(token.symbol !== "USDT"),
    logs: [
      { address: t, topics: [TRANSFER_TOPIC, addressTopic(from), addressTopic(to)], data: encodeUint(value) },
    ],
    commit: () => {
      if (from !== to) {
        state.setSlot(t, balanceKey(from), fromBal - value);
        state.setSlot(t, balanceKey(to), toBal + value);
      }
      if (viaAllowance)
        state.setSlot(t, allowanceKey(from, viaAllowance.spender), viaAllowance.allowed - value);
    },
  };
}

export function isViewCall(data: string): boolean {
  const call = decodeTrc20Call(data);
  return call !== null && VIEW_METHODS.has(call.method);
}
