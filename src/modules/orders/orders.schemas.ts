import { pageQuery } from '../../lib/pagination.js';

export const listCustomerOrdersSchema = pageQuery(50);
