/**
 * What a list without paging (tasks, workspaces) is assumed to return when a request's cost is
 * estimated before it runs: the GraphQL cost budget and the MCP page budget both count it so.
 */
export const UNPAGED_LIST_SIZE = 100;
