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

export default { rules: { layers: rule } };
