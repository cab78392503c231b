namespace Voron.Testing.Crash;

/// <summary>Thrown by a merged operation that a scenario makes fail on purpose.</summary>
internal sealed class IntentionalOperationFailure : Exception
{
    public IntentionalOperationFailure() : base("this operation fails on purpose; its changes must never be visible") { }
}
