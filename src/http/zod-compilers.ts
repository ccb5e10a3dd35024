/**
 * The zod validator and serializer compilers as Fastify's compiler factory. Every route schema is a
 * zod schema, so Fastify's default compilers (Ajv and fast-json-stringify) would only be loaded and
 * set up at start-up to be replaced at once: given as the factory, they are never loaded.
 */
import type { FastifyServerOptions } from "fastify";
import { serializerCompiler, validatorCompiler } from "fastify-type-provider-zod";

type Factories = NonNullable<NonNullable<FastifyServerOptions["schemaController"]>["compilersFactory"]>;

export const zodSchemaController: FastifyServerOptions["schemaController"] = {
  compilersFactory: {
    // Fastify calls a factory with its Ajv options and uses what it returns exactly like a compiler
    // given to setValidatorCompiler/setSerializerCompiler; only the typings tie it to Ajv.
    buildValidator: (() => validatorCompiler) as unknown as Factories["buildValidator"],
    buildSerializer: (() => serializerCompiler) as unknown as Factories["buildSerializer"],
  },
};
