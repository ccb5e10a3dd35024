/**
 * The lint rule that makes the service's layers (ARCHITECTURE.md, "Rules the layout enforces") a
 * checked fact (`stablegate/layers`, configured per folder in eslint.config.js). A file of a layer
 * may not import what its layer is refused, neither for its values nor for its types:
 *
 *   { layer: "src/http",
 *     refuse: [{ modules: ["drizzle-orm", "pg-*"], paths: ["src/db"], except: ["src/db/x.ts"], reason }],
 *     handles: ["db"] }
 *
 * - `modules`: npm packages; a name covers its subpaths (drizzle-orm/pg-core), and a trailing `*`
 *   covers every package that starts so (pg-* is pg-pool, pg-cursor, ...);
 * - `paths`: files or folders of the repository (without extension: a folder covers everything
 *   under it), reached by a relative import; `except` lets named files of them through;
 * - `handles`: property names the layer may not read or destructure (the context's database
 *   handles), so no query can be built from what a route is handed either.
 */
import { dirname, relative, resolve, sep } from "node:path";
import { importVisitors } from "./eslint-imports.js";

const ROOT = resolve(import.meta.dirname, "..");

/** A repository path without its extension, with "/" separators: "src/db/connection". */
function modulePath(absolute) {
  return relative(ROOT, absolute)
    .split(sep)
    .join("/")
    .replace(/\.(?:[cm]?[jt]sx?)$/, "");
}

function coversPath(entry, path) {
  const target = entry.replace(/\.(?:[cm]?[jt]sx?)$/, "").replace(/\/+$/, "");
  return path === target || path.startsWith(`${target}/`);
}

function coversModule(entry, specifier) {
  if (entry.endsWith("*")) return specifier.startsWith(entry.slice(0, -1));
  return specifier === entry || specifier.startsWith(`${entry}/`);
}

const refusalSchema = {
  type: "object",
  properties: {
    modules: { type: "array", items: { type: "string" } },
    paths: { type: "array", items: { type: "string" } },
    except: { type: "array", items: { type: "string" } },
    reason: { type: "string" },
  },
  required: ["reason"],
  additionalProperties: false,
};

const rule = {
  meta: {
    type: "problem",
    docs: { description: "keeps each layer of the service to what it may import (ARCHITECTURE.md)" },
    schema: [
      {
        type: "object",
        properties: {
          layer: { type: "string" },
          refuse: { type: "array", items: refusalSchema },
          handles: { type: "array", items: { type: "string" } },
        },
        required: ["layer"],
        additionalProperties: false,
      },
    ],
    messages: {
      refused: "{{layer}} may not import '{{specifier}}': {{reason}}",
      handle: "{{layer}} may not use the database handle '{{name}}': pass the context to a domain function",
    },
  },
  create(context) {
    const { layer, refuse = [], handles = [] } = context.options[0];
    const file = context.filename;

    function refusalOf(specifier) {
      const relativePath = specifier.startsWith("./") || specifier.startsWith("../");
      const path = relativePath ? modulePath(resolve(dirname(file), specifier)) : null;
      return refuse.find((refusal) => {
        if (path === null) return (refusal.modules ?? []).some((entry) => coversModule(entry, specifier));
        if (!(refusal.paths ?? []).some((entry) => coversPath(entry, path))) return false;
        return !(refusal.except ?? []).some((entry) => coversPath(entry, path));
      });
    }

    function check(node, specifier) {
      if (typeof specifier !== "string") return;
      const refusal = refusalOf(specifier);
      if (refusal)
        context.report({ node, messageId: "refused", data: { layer, specifier, reason: refusal.reason } });
    }

    const isHandle = (name) => typeof name === "string" && handles.includes(name);
    return {
      ...importVisitors(check),
      MemberExpression(node) {
        const name = node.computed
          ? node.property.type === "Literal"
            ? node.property.value
            : undefined
          : node.property.name;
        if (isHandle(name))
          context.report({ node: node.property, messageId: "handle", data: { layer, name } });
      },
      "ObjectPattern > Property"(node) {
        const name = node.computed
          ? node.key.type === "Literal"
            ? node.key.value
            : undefined
          : (node.key.name ?? node.key.value);
        if (isHandle(name)) context.report({ node: node.key, messageId: "handle", data: { layer, name } });
      },
    };
  },
};

/**
 * `stablegate/chain-families`: chain families stay behind the chain boundary (src/chains/chain.ts).
 *
 *   { root: "src/chains",
 *     families: { tron: ["@stablegate/tron", "tronweb"], evm: ["viem", "ethers"] },
 *     names: ["tron", "ethereum", ..., "evm"],
 *     allow: [{ paths: ["src/sweeps"], reason }] }
 *
 * - a family's toolkit (`families[f]`, npm names as in `modules` above) is imported only under
 *   `root/f/`;
 * - nothing outside `root` imports a family's folder (`root/<family>/`): the rest of the service
 *   reaches a chain through the boundary's own modules (root/*.ts, which build the families) and
 *   ctx.chains; one family's folder does not import another's;
 * - `allow` lifts both import rules for named files or folders, each with its reason;
 * - outside `root`, no code compares a value with a chain or family name (`chain === "tron"`,
 *   `case "evm":`): what differs between chains is a method of the boundary, not a branch.
 */
const familiesRule = {
  meta: {
    type: "problem",
    docs: { description: "keeps each chain family's code and toolkit behind the chain boundary" },
    schema: [
      {
        type: "object",
        properties: {
          root: { type: "string" },
          families: { type: "object", additionalProperties: { type: "array", items: { type: "string" } } },
          names: { type: "array", items: { type: "string" } },
          allow: {
            type: "array",
            items: {
              type: "object",
              properties: { paths: { type: "array", items: { type: "string" } }, reason: { type: "string" } },
              required: ["paths", "reason"],
              additionalProperties: false,
            },
          },
        },
        required: ["root", "families"],
        additionalProperties: false,
      },
    ],
    messages: {
      toolkit:
        "only {{folder}}/ may import '{{specifier}}' (the {{family}} family's toolkit): call the chain boundary",
      folder:
        "'{{specifier}}' is inside the {{family}} family's folder: reach a chain through src/chains/*.ts and ctx.chains",
      branch:
        "domain code may not branch on the chain name '{{name}}': make what differs a method of the chain boundary (src/chains/chain.ts)",
    },
  },
  create(context) {
    const { root, families, names = [], allow = [] } = context.options[0];
    const file = modulePath(context.filename);
    const familyOf = (path) => Object.keys(families).find((family) => coversPath(`${root}/${family}`, path));
    const ownFamily = familyOf(file);
    const insideRoot = coversPath(root, file);
    const allowed = allow.some((entry) => entry.paths.some((path) => coversPath(path, file)));

    function check(node, specifier) {
      if (typeof specifier !== "string" || allowed) return;
      const relativePath = specifier.startsWith("./") || specifier.startsWith("../");
      if (!relativePath) {
        for (const [family, modules] of Object.entries(families)) {
          if (family !== ownFamily && modules.some((entry) => coversModule(entry, specifier)))
            context.report({
              node,
              messageId: "toolkit",
              data: { folder: `${root}/${family}`, specifier, family },
            });
        }
        return;
      }
      const family = familyOf(modulePath(resolve(dirname(context.filename), specifier)));
      const outsider = !insideRoot || (ownFamily !== undefined && ownFamily !== family);
      if (family !== undefined && family !== ownFamily && outsider)
        context.report({ node, messageId: "folder", data: { specifier, family } });
    }

    const nameOf = (node) =>
      node?.type === "Literal" && typeof node.value === "string" && names.includes(node.value)
        ? node.value
        : undefined;
    const branchVisitors = insideRoot
      ? {}
      : {
          BinaryExpression(node) {
            if (!["===", "!==", "==", "!="].includes(node.operator)) return;
            const name = nameOf(node.left) ?? nameOf(node.right);
            if (name !== undefined) context.report({ node, messageId: "branch", data: { name } });
          },
          SwitchCase(node) {
            const name = nameOf(node.test);
            if (name !== undefined) context.report({ node, messageId: "branch", data: { name } });
          },
        };
    return { ...importVisitors(check), ...branchVisitors };
  },
};

export default { rules: { layers: rule, "chain-families": familiesRule } };
