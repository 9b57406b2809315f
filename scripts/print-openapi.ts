/** npm run openapi:print — writes the /v1 OpenAPI document to openapi.json (committed; a test fails when it is stale). */
import { writeFileSync } from 'node:fs';
import { OPENAPI_FILE, openApiText } from '../src/rest/openapi.js';

writeFileSync(OPENAPI_FILE, openApiText());
console.log(`wrote ${OPENAPI_FILE}`);
