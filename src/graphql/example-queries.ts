/**
 * The query GraphiQL opens with, the demo prints and the README shows: the customer graph
 * (customers with their subscriptions, each subscription's product and charges, orders,
 * licenses) in one request, with no variables to fill in.
 */
export const CUSTOMER_GRAPH_EXAMPLE = /* GraphQL */ `# Customers with everything attached, in one request.
# Put your test key (sk_test_…) in the x-api-key header below, then run.
query CustomerGraph {
  customers(first: 5) {
    totalCount
    edges {
      node {
        id
        email
        subscriptions(first: 10) {
          edges {
            node {
              id
              status
              currentPeriodEndDate
              product { id name price { amount currency } }
              transactions(first: 5) {
                edges { node { id type status createdAt } }
              }
            }
          }
        }
        orders(first: 10) {
          edges { node { id status amountPaid { amount currency } product { name } } }
        }
        licenses(first: 10) {
          edges { node { id key status product { name } } }
        }
      }
    }
  }
}
`;

/** The placeholder GraphiQL's headers editor opens with. */
export const API_KEY_PLACEHOLDER = 'sk_test_REPLACE_WITH_YOUR_TEST_KEY';
