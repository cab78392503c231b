using System.Runtime.InteropServices;

namespace Voron.LoadTests.Engines.Lmdb;

/// <summary>
/// LMDB's <c>MDB_val</c>: a length and a pointer. Values LMDB returns point into its memory
/// map and stay valid only until the transaction they came from ends.
/// </summary>
[StructLayout(LayoutKind.Sequential)]
internal struct MdbVal
{
    public nuint Size;
    public nint Data;

    public MdbVal(nint data, int size)
    {
        Data = data;
        Size = (nuint)size;
    }

    /// <summary>Copies the bytes out of LMDB's map into <paramref name="buffer"/> (grown if too small); returns their length.</summary>
    public readonly int CopyTo(ref byte[] buffer)
    {
        var length = checked((int)Size);
        if (length > buffer.Length)
        {
            buffer = new byte[length];
        }

        Marshal.Copy(Data, buffer, 0, length);
        return length;
    }
}
