export class CliError extends Error {}
