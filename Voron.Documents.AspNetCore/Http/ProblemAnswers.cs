using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Mvc;

namespace Voron.Documents.AspNetCore.Http;

/// <summary>How every answer of AddVoronProblemDetails is written: the problem's status, then its body through the app's <see cref="IProblemDetailsService"/>.</summary>
internal static class ProblemAnswers
{
    public static ValueTask<bool> AnswerAsync(this IProblemDetailsService problems, HttpContext httpContext, ProblemDetails problem, Exception? exception = null)
    {
        httpContext.Response.StatusCode = problem.Status!.Value;
        return problems.TryWriteAsync(new ProblemDetailsContext
        {
            HttpContext = httpContext,
            ProblemDetails = problem,
            Exception = exception,
        });
    }
}
