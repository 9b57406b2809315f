/** The hosted checkout's HTTP "browser" lives in production code (the demo buys through it); tests use the same one. */
export { CheckoutBrowser, type PageResult } from '../../src/cli/checkout-buyer.js';

export const BUYER = {
  email: 'buyer@example.com',
  name: 'Ada Buyer',
  country: 'US',
  card_number: '4242 4242 4242 4242',
  card_expiry: '12/34',
  card_cvc: '123',
};

export const TEST_CARDS = {
  success: '4242 4242 4242 4242',
  declined: '4000 0000 0000 0002',
  insufficientFunds: '4000 0000 0000 9995',
  incorrectCvc: '4000 0000 0000 0127',
};
