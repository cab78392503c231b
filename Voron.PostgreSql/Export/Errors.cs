using System.Net.Sockets;
using Npgsql;

namespace Voron.PostgreSql.Export;

/// <summary>Npgsql's failures turned into messages that say what happened and what to do.</summary>
internal static class Errors
{
    /// <summary>An open connection to <paramref name="connectionString"/>, or a <see cref="PostgreSqlExportException"/> saying why not.</summary>
    public static async Task<NpgsqlConnection> OpenAsync(string connectionString, string where, CancellationToken cancellationToken)
    {
        var connection = new NpgsqlConnection(connectionString);
        try
        {
            await connection.OpenAsync(cancellationToken).ConfigureAwait(false);
            return connection;
        }
        catch (Exception e) when (e is NpgsqlException or TimeoutException or SocketException)
        {
            await connection.DisposeAsync().ConfigureAwait(false);
            throw Opening(e, where);
        }
    }

    private static PostgreSqlExportException Opening(Exception e, string where) => e switch
    {
        PostgresException { SqlState: "28P01" or "28000" } p => new PostgreSqlExportException(
            $"PostgreSQL at {where} refused the login: {p.MessageText}. Check the user name and password in the connection string (and pg_hba.conf on the server).", e),
        PostgresException { SqlState: "3D000" } p => new PostgreSqlExportException(
            $"PostgreSQL at {where}: {p.MessageText}. Create it first (createdb, or CREATE DATABASE) or name an existing database in the connection string.", e),
        PostgresException p => new PostgreSqlExportException($"PostgreSQL at {where} refused the connection: {p.MessageText} ({p.SqlState}).", e),
        _ when Find<SocketException>(e) is { } socket => new PostgreSqlExportException(
            $"Cannot reach PostgreSQL at {where}: {socket.Message}. Is the server running and listening on that host and port (pg_ctl status, listen_addresses)?", e),
        _ when Find<TimeoutException>(e) is not null => new PostgreSqlExportException(
            $"Cannot reach PostgreSQL at {where}: the connection timed out. Check the host, the port and any firewall between.", e),
        _ => new PostgreSqlExportException($"Cannot connect to PostgreSQL at {where}: {e.Message}", e),
    };

    /// <summary>A failure after the connection was made: the server went away, or refused a statement.</summary>
    public static PostgreSqlExportException During(NpgsqlException e, string where) => e switch
    {
        PostgresException p => new PostgreSqlExportException(
            $"PostgreSQL at {where} refused the export: {p.MessageText} ({p.SqlState}{(p.TableName is { } t ? ", table " + t : "")}). " +
            "What was committed stays; run the export again to resume once the cause is fixed.", e),
        _ => new PostgreSqlExportException(
            $"Lost PostgreSQL at {where} during the export: {e.Message}. Every batch committed before stays and is counted; run the same export again to resume.", e),
    };

    private static T? Find<T>(Exception e) where T : Exception
    {
        for (Exception? at = e; at is not null; at = at.InnerException)
        {
            if (at is T found)
            {
                return found;
            }
        }

        return null;
    }
}
