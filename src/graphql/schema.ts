import { builder } from './builder.js';
import '../modules/stores/stores.graphql.js';
import '../modules/products/products.graphql.js';
import '../modules/customers/customers.graphql.js';

export const schema = builder.toSchema({ sortSchema: true });
