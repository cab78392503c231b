namespace Voron.Tests.Sql.Logic;

/// <summary>
/// What the runner does with one statement of a converted script: run <see cref="Sql"/> (the
/// script's own text, or a rewrite); or call <see cref="Apply"/> (which returns null on success,
/// else the error, for <c>statement error</c>); or skip it for <see cref="SkipReason"/>, counted
/// and reported. <see cref="AfterSuccess"/> runs when the statement succeeded, so the conversion's
/// idea of which tables and indexes exist follows what really happened.
/// </summary>
internal sealed record SqlLogicStep(string? Sql, Func<string?>? Apply = null, string? SkipReason = null, Action? AfterSuccess = null)
{
    public static SqlLogicStep Run(string sql, Action? afterSuccess = null) => new(sql, AfterSuccess: afterSuccess);

    public static SqlLogicStep Call(Func<string?> apply, Action? afterSuccess = null) => new(null, apply, AfterSuccess: afterSuccess);

    public static SqlLogicStep Skip(string reason) => new(null, SkipReason: reason);
}
