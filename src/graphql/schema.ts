import { builder } from './builder.js';
import '../modules/stores/stores.graphql.js';
import '../modules/products/products.graphql.js';
import '../modules/discounts/discounts.graphql.js';
import '../modules/customers/customers.graphql.js';
import '../modules/subscriptions/subscriptions.graphql.js';
import '../modules/licenses/licenses.graphql.js';
import '../modules/checkouts/checkouts.graphql.js';
import '../modules/portal/portal.graphql.js';
import '../modules/webhooks/webhooks.graphql.js';
import '../modules/test-clock/test-clock.graphql.js';
import '../modules/refunds/refunds.graphql.js';
import '../modules/credits/credits.graphql.js';
import '../modules/meters/meters.graphql.js';
import '../modules/splits/splits.graphql.js';
import '../modules/stats/stats.graphql.js';
import '../modules/usage-events/usage-events.graphql.js';

export const schema = builder.toSchema({ sortSchema: true });
