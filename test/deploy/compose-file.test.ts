/**
 * compose.yaml, the Dockerfile and the env file examples, checked without Docker (which this
 * machine cannot run): every variable they give Stablegate is one src/config.ts reads, the api tier
 * never receives the mnemonic or the hot wallet key, and every command is a real CLI verb and role.
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { COMMANDS, ROLES } from "../../src/commands.js";

const ROOT = resolve(import.meta.dirname, "../..");
const read = (path: string) => readFileSync(join(ROOT, path), "utf8");
const SIGNING = ["WALLET_MNEMONIC", "HOT_WALLET_PRIVATE_KEY"];

/** The variables the config module reads: read("NAME") and required("NAME", ...), plus NODE_ENV. */
function configVariables(): Set<string> {
  const names = [...read("src/config.ts").matchAll(/\b(?:read|required)\("([A-Z0-9_]+)"/g)].map(
    (m) => m[1] as string,
  );
  return new Set(["NODE_ENV", ...names]);
}

function envFileVariables(path: string): Record<string, string> {
  const entries: Record<string, string> = {};
  for (const line of read(path).split("\n")) {
    const match = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (match) entries[match[1] as string] = match[2] as string;
  }
  return entries;
}

interface Service {
  image?: string;
  build?: unknown;
  command?: string[];
  environment?: Record<string, string>;
  env_file?: ({ path: string } | string)[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { disable?: boolean; test?: string[] };
  ports?: string[];
  volumes?: string[];
}

const compose = parse(read("compose.yaml"), { merge: true }) as {
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
};
const stablegate = Object.entries(compose.services).filter(([, s]) => s.image?.startsWith("stablegate"));
const envFiles = (service: Service) =>
  (service.env_file ?? []).map((f) => (typeof f === "string" ? f : f.path));

describe("compose.yaml", () => {
  it("runs PostgreSQL with a volume and a health check, a one-shot migrate, api and worker", () => {
    expect(Object.keys(compose.services)).toEqual(
      expect.arrayContaining(["postgres", "migrate", "api", "worker"]),
    );
    const postgres = compose.services.postgres as Service;
    expect(postgres.volumes?.some((v) => v.startsWith("pgdata:"))).toBe(true);
    expect(compose.volumes).toHaveProperty("pgdata");
    expect(postgres.healthcheck?.test?.join(" ")).toContain("pg_isready");
    expect(compose.services.migrate?.depends_on?.postgres?.condition).toBe("service_healthy");
    for (const name of ["api", "worker"]) {
      expect(compose.services[name]?.depends_on?.migrate?.condition).toBe("service_completed_successfully");
    }
    expect(stablegate.map(([name]) => name).sort()).toEqual(["api", "migrate", "worker"]);
  });

  it("sets only variables the config module knows, directly and through the env files", () => {
    const known = configVariables();
    expect(known.has("DATABASE_URL") && known.has("HOT_WALLET_ADDRESS") && known.has("METRICS_TOKEN")).toBe(
      true,
    );
    for (const [name, service] of stablegate) {
      for (const variable of Object.keys(service.environment ?? {})) {
        expect(known.has(variable), `${name} sets ${variable}`).toBe(true);
      }
      for (const file of envFiles(service)) {
        for (const variable of Object.keys(envFileVariables(`${file}.example`))) {
          expect(known.has(variable), `${file}.example sets ${variable}`).toBe(true);
        }
      }
    }
  });

  it("gives the mnemonic and the hot wallet key to the worker only", () => {
    const shared = envFileVariables("deploy/stablegate.env.example");
    const signing = envFileVariables("deploy/signing.env.example");
    expect(Object.keys(signing).sort()).toEqual([...SIGNING].sort());
    for (const variable of SIGNING) expect(shared).not.toHaveProperty(variable);
    for (const [name, service] of stablegate) {
      for (const variable of SIGNING) expect(service.environment ?? {}, name).not.toHaveProperty(variable);
      const getsSigning = envFiles(service).includes("deploy/signing.env");
      expect(getsSigning, `${name} env files`).toBe(name === "worker");
    }
    // The api still knows the wallets' public side, so it reports and accepts sweeps.
    expect(shared).toHaveProperty("WALLET_XPUB");
    expect(shared).toHaveProperty("HOT_WALLET_ADDRESS");
    expect(shared).toHaveProperty("COLD_WALLET_ADDRESS");
    expect(shared).toHaveProperty("SWEEP_ENABLED");
  });

  it("runs real CLI verbs and roles", () => {
    for (const [name, service] of stablegate) {
      const [verb, ...args] = service.command ?? [];
      expect(COMMANDS, name).toContain(verb);
      if (verb === "serve") {
        const role = args[args.indexOf("--role") + 1];
        expect(ROLES, name).toContain(role);
        expect(role).toBe(name);
      }
    }
    expect(compose.services.migrate?.command).toEqual(["migrate"]);
  });

  it("keeps the api replicas scalable: no fixed host port", () => {
    expect(compose.services.api?.ports).toBeUndefined();
  });
});

describe("Dockerfile", () => {
  const dockerfile = read("Dockerfile");
  const instruction = (name: string) =>
    dockerfile
      .split("\n")
      .filter((line) => line.startsWith(`${name} `))
      .map((line) => line.slice(name.length + 1).trim());

  it("builds in one stage and runs on a current Node LTS image as a non-root user", () => {
    const image = /^ARG NODE_IMAGE=node:(\d+)-/m.exec(dockerfile);
    expect(Number(image?.[1])).toBeGreaterThanOrEqual(22);
    expect(Number(image?.[1]) % 2).toBe(0);
    expect(instruction("FROM").length).toBeGreaterThanOrEqual(2);
    expect(dockerfile).toContain("npm run build");
    expect(dockerfile).toContain("npm ci --omit=dev");
    expect(instruction("USER")).toEqual(["node"]);
    expect(instruction("STOPSIGNAL")).toEqual(["SIGTERM"]);
  });

  it("checks health with node on the liveness route and starts through the CLI", () => {
    const healthcheck = dockerfile.slice(dockerfile.indexOf("HEALTHCHECK"));
    expect(healthcheck).toMatch(/CMD \["node", "-e"/);
    expect(healthcheck).toContain("/api/v1/health/live");
    expect(healthcheck).not.toMatch(/curl|wget/);
    expect(JSON.parse(instruction("ENTRYPOINT")[0] as string)).toEqual(["node", "bin/stablegate.mjs"]);
    const cmd = JSON.parse(instruction("CMD").at(-1) as string) as string[];
    expect(COMMANDS).toContain(cmd[0]);
    expect(ROLES).toContain(cmd[cmd.indexOf("--role") + 1]);
  });

  it("keeps secrets and local state out of the build context", () => {
    const ignored = read(".dockerignore").split("\n");
    for (const entry of [".env", "deploy/*.env", "data", "node_modules", "dist", ".git"]) {
      expect(ignored).toContain(entry);
    }
  });
});
