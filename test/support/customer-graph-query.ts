/**
 * The customer graph of issue 3 point 8: a customer with its subscriptions (each with product
 * and transactions), orders and licenses, as connections. One definition for the test that
 * counts its SQL statements (test/graphql/customer-graph.test.ts) and the benchmark.
 */
export const CUSTOMER_GRAPH = /* GraphQL */ `
  query CustomerGraph($id: ID!) {
    customer(id: $id) {
      apiId
      email
      subscriptions(first: 100) {
        totalCount
        edges {
          node {
            apiId
            status
            product { apiId name price features { type licenseActivationLimit } }
            items { priceId units }
            lastTransaction { apiId }
            transactions(first: 10) {
              totalCount
              edges { node { apiId amount status order { apiId } } }
            }
          }
        }
      }
      orders(first: 100) {
        totalCount
        edges { node { apiId amountDue product { apiId } transaction { apiId status } } }
      }
      transactions(first: 5) { totalCount }
      licenses(first: 100) {
        totalCount
        edges { node { apiId key product { apiId } } }
      }
    }
  }
`;
