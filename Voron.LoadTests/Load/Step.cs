namespace Voron.LoadTests.Load;

/// <summary>
/// A named, separately measured part of an invocation (NBomber's <c>Step.Run</c>). The first step
/// of an invocation is timed from the invocation's start, which in an open phase is its scheduled
/// start (so a step that waited for a free thread shows the wait); later steps from their own
/// start. An exception is a failed step (status <see cref="Response.ExceptionStatus"/>), counted and
/// returned, not thrown.
/// </summary>
internal static class Step
{
    public static async ValueTask<Response> Run(string name, ScenarioContext context, Func<ValueTask<Response>> run)
    {
        var start = context.FirstStepPending ? context.InvocationStart : Stopwatch.GetTimestamp();
        context.FirstStepPending = false;
        Response response;
        try
        {
            response = await run().ConfigureAwait(false);
        }
#pragma warning disable CA1031 // A failed step is a result to count, as a load tool counts it.
        catch (Exception e)
#pragma warning restore CA1031
        {
            response = Response.Fail(Response.ExceptionStatus, $"{e.GetType().Name}: {e.Message}");
        }

        context.Run.Step(name).Record(response, Stopwatch.GetTimestamp() - start);
        return response;
    }
}
