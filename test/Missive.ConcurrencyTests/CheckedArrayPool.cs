using System;
using System.Buffers;
using System.Collections.Generic;
using Microsoft.Coyote.Specifications;

namespace Missive.ConcurrencyTests;

/// <summary>
/// The explorations' buffer pool: every array it hands out is new and filled with a marker byte, and it checks the
/// pooled-buffer invariant: each rented array comes back once, cleared (only zeros or the marker), and none is left out.
/// </summary>
internal sealed class CheckedArrayPool : ArrayPool<byte>
{
    private const byte Marker = 0xCD;
    private readonly object _gate = new();
    private readonly HashSet<byte[]> _out = new(ReferenceEqualityComparer.Instance);
    private readonly HashSet<byte[]> _back = new(ReferenceEqualityComparer.Instance);
    private int _rents;

    public override byte[] Rent(int minimumLength)
    {
        var array = new byte[Math.Max(minimumLength, 16)];
        array.AsSpan().Fill(Marker);
        lock (_gate)
        {
            _out.Add(array);
            _rents++;
        }

        return array;
    }

    public override void Return(byte[] array, bool clearArray = false)
    {
        lock (_gate)
        {
            Specification.Assert(!_back.Contains(array), "a pooled buffer was returned twice");
            Specification.Assert(_out.Remove(array), "a buffer this pool did not hand out was returned to it");
            _back.Add(array);
        }

        Specification.Assert(clearArray || !array.AsSpan().ContainsAnyExcept((byte)0, Marker), "a pooled buffer was returned with data left in it (clearing is on)");
    }

    /// <summary>Asserts that the bus rented from this pool (the check is not empty) and that every array handed out has come back.</summary>
    public void CheckAllReturned(string when)
    {
        lock (_gate)
        {
            Specification.Assert(_rents > 0, $"no buffer was rented from the pool ({when}): the invariant checks nothing");
            Specification.Assert(_out.Count == 0, $"{_out.Count} pooled buffers were never returned ({when})");
        }
    }
}
