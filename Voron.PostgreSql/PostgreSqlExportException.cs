namespace Voron.PostgreSql;

/// <summary>An export to PostgreSQL that could not run or could not be verified; the message says why and what to do.</summary>
public sealed class PostgreSqlExportException : Exception
{
    /// <summary>An exception with the message.</summary>
    public PostgreSqlExportException()
    {
    }

    /// <summary>An exception with the message.</summary>
    public PostgreSqlExportException(string message) : base(message)
    {
    }

    /// <summary>An exception with the message and its cause.</summary>
    public PostgreSqlExportException(string message, Exception innerException) : base(message, innerException)
    {
    }
}
