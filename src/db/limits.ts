/** The largest value the database's INTEGER id columns hold (32-bit on PostgreSQL): ids and external ids past it are refused as input. */
export const maxIntColumn = 2_147_483_647;
