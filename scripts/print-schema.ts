/** npm run schema:print — writes the GraphQL schema to schema.graphql (committed; a test fails when it is stale). */
import { writeFileSync } from 'node:fs';
import { printedSchema, SCHEMA_FILE } from '../src/graphql/print.js';

writeFileSync(SCHEMA_FILE, printedSchema());
console.log(`wrote ${SCHEMA_FILE}`);
