// mcp-outputs/validators type-checks with the real Ajv and cfworker types.
import Ajv from "ajv";
import Ajv2020 from "ajv/dist/2020.js";
import { Validator } from "@cfworker/json-schema";
import { compileSchema, setValidator, type JsonSchemaValidator } from "mcp-outputs";
import { fromAjv, fromCfworker, dialectOf, type Dialect } from "mcp-outputs/validators";

const byClass: JsonSchemaValidator = fromAjv(Ajv2020);
const byDialect: JsonSchemaValidator = fromAjv({ "2020-12": new Ajv2020({ strict: false, validateFormats: false }), "draft-07": Ajv });
const edge: JsonSchemaValidator = fromCfworker(Validator, { shortCircuit: false });
setValidator(byClass);
const dialect: Dialect = dialectOf({ $schema: "http://json-schema.org/draft-07/schema#" });
const error = compileSchema({ type: "string" }, { validator: edge }).validate(1);
export { byDialect, dialect, error };
