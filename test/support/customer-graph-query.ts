/**
 * The customer graph of issue 3 point 8: a customer with its subscriptions (each with product
 * and transactions), orders and licenses, as connections. One definition for the test that
 * counts its SQL statements (test/graphql/customer-graph.test.ts) and the benchmark.
 * Ids are the /v1 ids; money is `Money { amount currency }`.
 */
export const CUSTOMER_GRAPH = /* GraphQL */ `
  query CustomerGraph($id: ID!) {
    customer(id: $id) {
      id
      email
      subscriptions(first: 100) {
        totalCount
        edges {
          node {
            id
            status
            product { id name price { amount currency } features { type licenseActivationLimit } }
            items { priceId units }
            lastTransaction { id }
            transactions(first: 10) {
              totalCount
              edges { node { id amount { amount currency } status order { id } } }
            }
          }
        }
      }
      orders(first: 100) {
        totalCount
        edges { node { id amountDue { amount currency } product { id } transaction { id status } } }
      }
      transactions(first: 5) { totalCount }
      licenses(first: 100) {
        totalCount
        edges { node { id key product { id } } }
      }
    }
  }
`;
