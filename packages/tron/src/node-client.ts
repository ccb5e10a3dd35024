import { Pool, request } from "undici";
import type { Dispatcher } from "undici";
import { toHex } from "./address.js";
import { int64ToNumber } from "./transaction.js";
import { BROADCAST_CODE_KINDS, decodeNodeMessage, retryAfterMs, TronNodeError } from "./node-errors.js";
import type { TronNodeErrorKind } from "./node-errors.js";
import type {
  AccountJson,
  AccountResourceJson,
  BlockJson,
  BroadcastResult,
  ConstantCallResult,
  DelegatedResourceAccountIndexJson,
  DelegatedResourceJson,
  SmartContractJson,
  TransactionInfo,
  BlockTransactionJson,
} from "./node-types.js";
import type { ResourceCode, TransactionJson } from "./protobuf.js";
import {
  RESOURCE_TYPE,
  checkBlock,
  checkHeader,
  idOrNum,
  isEmpty,
  isObject,
  optionalNumber,
  stringList,
  type Json,
} from "./node-parse.js";

export { TronNodeError } from "./node-errors.js";
export type { TronNodeErrorKind } from "./node-errors.js";

export interface NodeRequestEvent {
  path: string;
  durationMs: number;
  status?: number;
  /** set when the call failed */
  errorKind?: TronNodeErrorKind;
}

export interface NodeClientOptions {
  /** java-tron HTTP API base, e.g. https://api.trongrid.io or http://127.0.0.1:9090 */
  baseUrl: string;
  /** sent as TRON-PRO-API-KEY; never appears in errors */
  apiKey?: string;
  /** whole-request deadline; default 10 s */
  timeoutMs?: number;
  /** default: a keep-alive Pool owned (and closed) by this client */
  dispatcher?: Dispatcher;
  /** called once per HTTP call, for metrics and to count node usage */
  onRequest?: (e: NodeRequestEvent) => void;
  /** responses above this are refused as malformed; default 64 MiB (getblockbylimitnext can be big) */
  maxResponseBytes?: number;
}

export interface ConstantCallInput {
  owner: string;
  contract: string;
  /** calldata hex (selector + words) */
  data: string;
  callValue?: bigint;
}

export interface NodeClient {
  readonly baseUrl: string;
  /** HTTP calls made so far */
  readonly requestCount: number;
  getNowBlock(): Promise<BlockJson>;
  getSolidifiedNowBlock(): Promise<BlockJson>;
  getBlockByNum(n: number): Promise<BlockJson | null>;
  /**
   * A block without its transactions (wallet/getblock with detail false), by number or by 64-hex
   * blockID; null when the node has no such block. With `solidified`, from walletsolidity/getblock:
   * null until the block is solidified. java-tron has no range form of this call.
   */
  getBlockHeader(numOrId: number | string, opts?: { solidified?: boolean }): Promise<BlockJson | null>;
  /** blocks in [start, end) as java-tron defines it; [] when none */
  getBlockByLimitNext(start: number, end: number): Promise<BlockJson[]>;
  getTransactionInfoByBlockNum(n: number): Promise<TransactionInfo[]>;
  getTransactionById(id: string): Promise<BlockTransactionJson | null>;
  getTransactionInfoById(id: string, opts?: { solidified?: boolean }): Promise<TransactionInfo | null>;
  /** null when the account does not exist on chain (never received TRX) */
  getAccount(address: string): Promise<AccountJson | null>;
  /** {} (all fields absent) when the account does not exist. Not served under /walletsolidity. */
  getAccountResource(address: string): Promise<AccountResourceJson>;
  /**
   * The delegations from `from` to `to` (wallet/getdelegatedresourcev2): at most two entries, the
   * unlocked one and the locked one; [] when there are none.
   */
  getDelegatedResourceV2(from: string, to: string, opts?: SolidOption): Promise<DelegatedResourceJson[]>;
  /** Who delegates to `address` and to whom it delegates (Stake 2.0 index). */
  getDelegatedResourceAccountIndexV2(
    address: string,
    opts?: SolidOption,
  ): Promise<DelegatedResourceAccountIndexJson>;
  /** max_size: sun of stake the owner can still delegate for the resource (0 below 1 TRX). */
  getCanDelegatedMaxSize(owner: string, resource: ResourceCode, opts?: SolidOption): Promise<number>;
  /** How many more UnfreezeBalanceV2 the owner may have pending (java-tron allows 32); 0 for no account. */
  getAvailableUnfreezeCount(owner: string, opts?: SolidOption): Promise<number>;
  /** chain parameters by key, e.g. getEnergyFee, getTransactionFee, getCreateAccountFee */
  getChainParameters(): Promise<Record<string, number>>;
  getContract(address: string): Promise<SmartContractJson | null>;
  /** With `solidified`, from /walletsolidity: the call runs on the solidified state. */
  triggerConstantContract(input: ConstantCallInput, opts?: SolidOption): Promise<ConstantCallResult>;
  estimateEnergy(input: ConstantCallInput): Promise<number>;
  broadcastTransaction(signedTx: TransactionJson): Promise<BroadcastResult>;
  broadcastHex(signedTxHex: string): Promise<BroadcastResult>;
  /** closes the client's own pool (not a dispatcher passed in) */
  close(): Promise<void>;
}

/** `solidified`: ask /walletsolidity, which answers from the solidified state. */
export interface SolidOption {
  solidified?: boolean;
}

export function createNodeClient(opts: NodeClientOptions): NodeClient {
  const url = new URL(opts.baseUrl);
  const prefix = url.pathname.replace(/\/+$/, "");
  const ownPool = opts.dispatcher
    ? undefined
    : new Pool(url.origin, { connections: 16, keepAliveTimeout: 30_000 });
  const dispatcher: Dispatcher = opts.dispatcher ?? (ownPool as Pool);
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const maxBytes = opts.maxResponseBytes ?? 64 * 1024 * 1024;
  const apiKey = opts.apiKey;
  let count = 0;

  // The API key must never leak through an error, even if a node echoes request headers back.
  const scrub = (s: string): string => (apiKey ? s.split(apiKey).join("[redacted]") : s);
  const snippet = (s: string): string => scrub(s.length > 300 ? s.slice(0, 300) + "…" : s);

  async function call(path: string, body: unknown): Promise<unknown> {
    count++;
    const started = performance.now();
    let status: number | undefined;
    try {
      const result = await send(path, body, (s) => (status = s));
      opts.onRequest?.({ path, durationMs: performance.now() - started, status });
      return result;
    } catch (err) {
      const e = toNodeError(path, err);
      opts.onRequest?.({ path, durationMs: performance.now() - started, status, errorKind: e.kind });
      throw e;
    }
  }

  function toNodeError(path: string, err: unknown): TronNodeError {
    if (err instanceof TronNodeError) return err;
    const e = err as { name?: string; code?: string; message?: string };
    const timedOut =
      e?.name === "TimeoutError" ||
      e?.name === "AbortError" ||
      e?.code === "UND_ERR_HEADERS_TIMEOUT" ||
      e?.code === "UND_ERR_BODY_TIMEOUT" ||
      e?.code === "UND_ERR_CONNECT_TIMEOUT";
    if (timedOut) return new TronNodeError("timeout", path, `no answer within ${timeoutMs} ms`);
    return new TronNodeError(
      "network",
      path,
      snippet(`${e?.code ?? e?.name ?? "error"}: ${e?.message ?? ""}`),
      {
        cause: err,
      },
    );
  }

  async function send(path: string, body: unknown, onStatus: (s: number) => void): Promise<unknown> {
    const headers: Record<string, string> = {
      "content-type": "application/json",
      accept: "application/json",
    };
    if (apiKey) headers["TRON-PRO-API-KEY"] = apiKey;
    const res = await request(url.origin + prefix + path, {
      method: "POST",
      headers,
      body: JSON.stringify(body ?? {}),
      dispatcher,
      signal: AbortSignal.timeout(timeoutMs),
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    onStatus(res.statusCode);
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body) {
      size += (chunk as Buffer).length;
      if (size > maxBytes) {
        res.body.destroy();
        throw new TronNodeError("malformed", path, `response larger than ${maxBytes} bytes`, {
          status: res.statusCode,
        });
      }
      chunks.push(chunk as Buffer);
    }
    const text = Buffer.concat(chunks).toString("utf8");
    const status = res.statusCode;
    const extra = { status };
    if (status === 429) {
      const retryAfter = retryAfterMs(res.headers["retry-after"]);
      throw new TronNodeError("rate_limited", path, "rate limited (429)", {
        status,
        retryAfterMs: retryAfter,
      });
    }
    if (status >= 500)
      throw new TronNodeError("server", path, `server error ${status}: ${snippet(text)}`, extra);
    if (status === 401 || status === 403) {
      const kind = /limit|frequen|too many/i.test(text) ? "rate_limited" : "unauthorized";
      throw new TronNodeError(kind, path, `refused with ${status}: ${snippet(text)}`, extra);
    }
    if (status === 404) throw new TronNodeError("not_found", path, "no such endpoint (404)", extra);
    if (status < 200 || status >= 300)
      throw new TronNodeError("http", path, `HTTP ${status}: ${snippet(text)}`, extra);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new TronNodeError("malformed", path, `response is not JSON: ${snippet(text)}`, extra);
    }
    if (isObject(parsed) && typeof parsed.Error === "string") {
      // java-tron reports bad requests as HTTP 200 {"Error": "class java.lang.…Exception : reason"}
      const busy = /SERVER_BUSY|too many|busy/i.test(parsed.Error);
      throw new TronNodeError(busy ? "busy" : "validation", path, snippet(parsed.Error), extra);
    }
    return parsed;
  }

  async function object(path: string, body: unknown): Promise<Json> {
    const v = await call(path, body);
    if (!isObject(v)) throw new TronNodeError("malformed", path, "expected a JSON object");
    return v;
  }

  async function broadcast(path: string, body: unknown): Promise<BroadcastResult> {
    const v = await object(path, body);
    if (v.result === true) return { result: true, txid: String(v.txid ?? "") };
    const code = typeof v.code === "string" ? v.code : "OTHER_ERROR";
    const kind = BROADCAST_CODE_KINDS[code] ?? "broadcast";
    throw new TronNodeError(kind, path, `${code}: ${snippet(decodeNodeMessage(v.message))}`, { code });
  }

  function constantBody(i: ConstantCallInput): Json {
    const body: Json = {
      owner_address: toHex(i.owner),
      contract_address: toHex(i.contract),
      data: i.data.replace(/^0x/, ""),
      visible: false,
    };
    if (i.callValue) body.call_value = int64ToNumber(i.callValue, "callValue");
    return body;
  }

  function checkCallResult(path: string, v: Json): void {
    const r = v.result;
    if (isObject(r) && r.result !== true && typeof r.code === "string") {
      const kind = BROADCAST_CODE_KINDS[r.code] ?? "execution";
      throw new TronNodeError(kind, path, `${r.code}: ${snippet(decodeNodeMessage(r.message))}`, {
        code: r.code,
      });
    }
  }

  return {
    baseUrl: opts.baseUrl,
    get requestCount() {
      return count;
    },
    async getNowBlock() {
      return checkBlock("/wallet/getnowblock", await call("/wallet/getnowblock", {}));
    },
    async getSolidifiedNowBlock() {
      return checkBlock("/walletsolidity/getnowblock", await call("/walletsolidity/getnowblock", {}));
    },
    async getBlockByNum(n) {
      const v = await object("/wallet/getblockbynum", { num: n });
      return isEmpty(v) ? null : checkBlock("/wallet/getblockbynum", v);
    },
    async getBlockHeader(numOrId, o = {}) {
      const path = o.solidified ? "/walletsolidity/getblock" : "/wallet/getblock";
      const v = await object(path, { id_or_num: idOrNum(numOrId), detail: false });
      return isEmpty(v) ? null : checkHeader(path, v);
    },
    async getBlockByLimitNext(start, end) {
      const path = "/wallet/getblockbylimitnext";
      const v = await object(path, { startNum: start, endNum: end });
      if (v.block === undefined) return [];
      if (!Array.isArray(v.block)) throw new TronNodeError("malformed", path, "block is not an array");
      return v.block.map((b) => checkBlock(path, b));
    },
    async getTransactionInfoByBlockNum(n) {
      const path = "/wallet/gettransactioninfobyblocknum";
      const v = await call(path, { num: n });
      if (Array.isArray(v)) return v as TransactionInfo[];
      if (isObject(v) && isEmpty(v)) return []; // java-tron answers {} for a block without transactions
      throw new TronNodeError("malformed", path, "expected an array of transaction infos");
    },
    async getTransactionById(id) {
      const v = await object("/wallet/gettransactionbyid", { value: id.replace(/^0x/, "") });
      return isEmpty(v) ? null : (v as unknown as BlockTransactionJson);
    },
    async getTransactionInfoById(id, o = {}) {
      const path = o.solidified ? "/walletsolidity/gettransactioninfobyid" : "/wallet/gettransactioninfobyid";
      const v = await object(path, { value: id.replace(/^0x/, "") });
      return isEmpty(v) ? null : (v as unknown as TransactionInfo);
    },
    async getAccount(address) {
      const v = await object("/wallet/getaccount", { address: toHex(address), visible: false });
      return isEmpty(v) ? null : (v as AccountJson);
    },
    async getAccountResource(address) {
      return (await object("/wallet/getaccountresource", {
        address: toHex(address),
        visible: false,
      })) as AccountResourceJson;
    },
    async getDelegatedResourceV2(from, to, o = {}) {
      const path = (o.solidified ? "/walletsolidity" : "/wallet") + "/getdelegatedresourcev2";
      const v = await object(path, { fromAddress: toHex(from), toAddress: toHex(to), visible: false });
      if (v.delegatedResource === undefined) return [];
      if (!Array.isArray(v.delegatedResource) || !v.delegatedResource.every(isObject))
        throw new TronNodeError("malformed", path, "delegatedResource is not a list");
      return v.delegatedResource as unknown as DelegatedResourceJson[];
    },
    async getDelegatedResourceAccountIndexV2(address, o = {}) {
      const path = (o.solidified ? "/walletsolidity" : "/wallet") + "/getdelegatedresourceaccountindexv2";
      const v = await object(path, { value: toHex(address), visible: false });
      const out: DelegatedResourceAccountIndexJson = {
        fromAccounts: stringList(path, v.fromAccounts, "fromAccounts"),
        toAccounts: stringList(path, v.toAccounts, "toAccounts"),
      };
      if (typeof v.account === "string") out.account = v.account;
      if (typeof v.timestamp === "number") out.timestamp = v.timestamp;
      return out;
    },
    async getCanDelegatedMaxSize(owner, resource, o = {}) {
      const path = (o.solidified ? "/walletsolidity" : "/wallet") + "/getcandelegatedmaxsize";
      const type = RESOURCE_TYPE[resource];
      if (type === undefined) throw new RangeError(`unknown resource ${String(resource)}`);
      const v = await object(path, { owner_address: toHex(owner), type, visible: false });
      return optionalNumber(path, v, "max_size");
    },
    async getAvailableUnfreezeCount(owner, o = {}) {
      const path = (o.solidified ? "/walletsolidity" : "/wallet") + "/getavailableunfreezecount";
      const v = await object(path, { owner_address: toHex(owner), visible: false });
      return optionalNumber(path, v, "count");
    },
    async getChainParameters() {
      const path = "/wallet/getchainparameters";
      const v = await object(path, {});
      if (!Array.isArray(v.chainParameter))
        throw new TronNodeError("malformed", path, "no chainParameter list");
      const out: Record<string, number> = {};
      for (const p of v.chainParameter as { key?: unknown; value?: unknown }[]) {
        if (typeof p?.key === "string") out[p.key] = typeof p.value === "number" ? p.value : 0;
      }
      return out;
    },
    async getContract(address) {
      const v = await object("/wallet/getcontract", { value: toHex(address), visible: false });
      return isEmpty(v) ? null : (v as SmartContractJson);
    },
    async triggerConstantContract(input, o = {}) {
      const path = (o.solidified ? "/walletsolidity" : "/wallet") + "/triggerconstantcontract";
      const v = await object(path, constantBody(input));
      checkCallResult(path, v);
      return v as unknown as ConstantCallResult;
    },
    async estimateEnergy(input) {
      const path = "/wallet/estimateenergy";
      const v = await object(path, constantBody(input));
      checkCallResult(path, v);
      if (typeof v.energy_required === "number") return v.energy_required;
      // java-tron omits zero values, so a successful answer without the field means 0
      if (isObject(v.result) && v.result.result === true) return 0;
      throw new TronNodeError("malformed", path, "no energy_required in the answer");
    },
    broadcastTransaction(signedTx) {
      return broadcast("/wallet/broadcasttransaction", signedTx);
    },
    broadcastHex(hex) {
      return broadcast("/wallet/broadcasthex", { transaction: hex.replace(/^0x/, "") });
    },
    async close() {
      await ownPool?.close();
    },
  };
}
