// One measured run for bench/evm-libs.ts, in a fresh plain-node process (no tsx):
//   node --expose-gc bench/evm-libs-workload.mjs <none|viem|ethers> <xpub> <rpc url> <token> <faucet key>
// Imports what the service would use from the library, then does the service's EVM work with it:
// addresses from an account-level xpub, ERC-20 ABI encode/decode, EIP-1559 and type-4 signing, and
// JSON-RPC reads (head, `finalized`, logs) plus one sent transfer. Prints one JSON line of figures.
// The HD keys come from the libraries already in the tree (@scure/bip32, @noble/curves) for every
// library alike, so they are loaded before the clock starts and count in the baseline.
import process from "node:process";
import { performance } from "node:perf_hooks";
import { HDKey } from "@scure/bip32";
import { secp256k1 } from "@noble/curves/secp256k1.js";

const [lib, xpub, rpcUrl, token, faucetKey] = process.argv.slice(2);
const ADDRESSES = 1000;
const ABI_ROUNDS = 1000;
const SIGNATURES = 100;
const RPC_ROUNDS = 50;
const SWEEPER = "0x000000000000000000000000000000000000dEaD";
const account = HDKey.fromExtendedKey(xpub);
const publicKeys = Array.from(
  { length: ADDRESSES },
  (_, i) => account.deriveChild(0).deriveChild(i).publicKey,
);

/** Milliseconds per phase of the work, in order. */
function phaseClock() {
  let last = performance.now();
  const done = {};
  return {
    done,
    mark(name) {
      const now = performance.now();
      done[name] = now - last;
      last = now;
    },
  };
}

const mb = () => {
  globalThis.gc?.();
  return process.memoryUsage().rss;
};

async function runViem() {
  const t0 = performance.now();
  const viem = await import("viem");
  const accounts = await import("viem/accounts");
  const importMs = performance.now() - t0;
  const rssImport = mb();
  const t1 = performance.now();
  const phases = phaseClock();
  const addresses = publicKeys.map((pub) =>
    accounts.publicKeyToAddress(viem.toHex(secp256k1.Point.fromBytes(pub).toBytes(false))),
  );
  phases.mark("addresses");
  let encoded = "";
  for (let i = 0; i < ABI_ROUNDS; i++) {
    encoded = viem.encodeFunctionData({
      abi: viem.erc20Abi,
      functionName: "transfer",
      args: [addresses[i % ADDRESSES], BigInt(i) * 1_000_000n],
    });
    const log = viem.decodeEventLog({
      abi: viem.erc20Abi,
      topics: [
        "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef",
        viem.pad(addresses[0]),
        viem.pad(addresses[i % ADDRESSES]),
      ],
      data: viem.pad(viem.toHex(BigInt(i))),
    });
    if (log.args.value !== BigInt(i)) throw new Error("decode mismatch");
  }
  const signer = accounts.privateKeyToAccount(faucetKey);
  const fees = { maxFeePerGas: 30_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n, gas: 100_000n };
  phases.mark("abi");
  let raw1559 = "";
  let raw7702 = "";
  for (let i = 0; i < SIGNATURES; i++) {
    const base = { chainId: 31337, nonce: i, to: token, data: encoded, ...fees };
    raw1559 = await signer.signTransaction({ type: "eip1559", ...base });
    const authorization = await signer.signAuthorization({ address: SWEEPER, chainId: 31337, nonce: i + 1 });
    raw7702 = await signer.signTransaction({ type: "eip7702", ...base, authorizationList: [authorization] });
  }
  phases.mark("sign");
  const client = viem.createPublicClient({ transport: viem.http(rpcUrl) });
  let logs = 0;
  for (let i = 0; i < RPC_ROUNDS; i++) {
    const head = await client.getBlockNumber({ cacheTime: 0 });
    const finalized = await client.getBlock({ blockTag: "finalized" });
    logs = (
      await client.getLogs({
        address: token,
        event: viem.getAbiItem({ abi: viem.erc20Abi, name: "Transfer" }),
        fromBlock: 0n,
        toBlock: head,
      })
    ).length;
    if (finalized.number > head) throw new Error("finalized ahead of head");
  }
  const nonce = await client.getTransactionCount({ address: signer.address, blockTag: "pending" });
  const sent = await client.sendRawTransaction({
    serializedTransaction: await signer.signTransaction({
      type: "eip1559",
      chainId: 31337,
      nonce,
      to: token,
      data: encoded,
      ...fees,
    }),
  });
  await client.request({ method: "evm_mine", params: [] });
  const receipt = await client.getTransactionReceipt({ hash: sent });
  if (receipt.status !== "success") throw new Error("transfer failed");
  phases.mark("rpc");
  return {
    importMs,
    rssImport,
    workMs: performance.now() - t1,
    phases: phases.done,
    addresses,
    raw1559,
    raw7702,
    logs,
  };
}

async function runEthers() {
  const t0 = performance.now();
  const ethers = await import("ethers");
  const importMs = performance.now() - t0;
  const rssImport = mb();
  const t1 = performance.now();
  const phases = phaseClock();
  const addresses = publicKeys.map((pub) => ethers.computeAddress(ethers.hexlify(pub)));
  const erc20 = new ethers.Interface([
    "function transfer(address to, uint256 value) returns (bool)",
    "event Transfer(address indexed from, address indexed to, uint256 value)",
  ]);
  const coder = ethers.AbiCoder.defaultAbiCoder();
  phases.mark("addresses");
  let encoded = "";
  for (let i = 0; i < ABI_ROUNDS; i++) {
    encoded = erc20.encodeFunctionData("transfer", [addresses[i % ADDRESSES], BigInt(i) * 1_000_000n]);
    const log = erc20.parseLog({
      topics: [
        "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef",
        ethers.zeroPadValue(addresses[0], 32),
        ethers.zeroPadValue(addresses[i % ADDRESSES], 32),
      ],
      data: coder.encode(["uint256"], [BigInt(i)]),
    });
    if (log?.args.value !== BigInt(i)) throw new Error("decode mismatch");
  }
  const signer = new ethers.Wallet(faucetKey);
  const fees = { maxFeePerGas: 30_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n, gasLimit: 100_000n };
  phases.mark("abi");
  let raw1559 = "";
  let raw7702 = "";
  for (let i = 0; i < SIGNATURES; i++) {
    const base = { chainId: 31337, nonce: i, to: token, data: encoded, ...fees };
    raw1559 = await signer.signTransaction({ type: 2, ...base });
    const authorization = signer.authorizeSync({ address: SWEEPER, chainId: 31337, nonce: i + 1 });
    raw7702 = await signer.signTransaction({ type: 4, ...base, authorizationList: [authorization] });
  }
  phases.mark("sign");
  // One request per call, as the service sends them (its node pool does failover per request):
  // ethers' default batching would hold each call 10 ms to gather a batch.
  const provider = new ethers.JsonRpcProvider(rpcUrl, 31337, {
    staticNetwork: true,
    cacheTimeout: -1,
    batchMaxCount: 1,
  });
  const transfer = erc20.getEvent("Transfer").topicHash;
  let logs = 0;
  for (let i = 0; i < RPC_ROUNDS; i++) {
    const head = await provider.getBlockNumber();
    const finalized = await provider.getBlock("finalized");
    logs = (await provider.getLogs({ address: token, topics: [transfer], fromBlock: 0, toBlock: head }))
      .length;
    if (finalized.number > head) throw new Error("finalized ahead of head");
  }
  const nonce = await provider.getTransactionCount(signer.address, "pending");
  const sent = await provider.broadcastTransaction(
    await signer.signTransaction({ type: 2, chainId: 31337, nonce, to: token, data: encoded, ...fees }),
  );
  await provider.send("evm_mine", []);
  const receipt = await provider.getTransactionReceipt(sent.hash);
  if (receipt?.status !== 1) throw new Error("transfer failed");
  provider.destroy();
  phases.mark("rpc");
  return {
    importMs,
    rssImport,
    workMs: performance.now() - t1,
    phases: phases.done,
    addresses,
    raw1559,
    raw7702,
    logs,
  };
}

const rssStart = mb();
const { addresses, ...result } = lib === "viem" ? await runViem() : lib === "ethers" ? await runEthers() : {};
process.stdout.write(
  JSON.stringify({ lib, rssStart, ...result, first: addresses?.[0], rssEnd: mb() }) + "\n",
);
