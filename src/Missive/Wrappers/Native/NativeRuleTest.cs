namespace Missive.Transport;

/// <summary>A rule's test over what a native message carries (by reference: what one rule reads of the body, the next reuses).</summary>
internal delegate bool NativeRuleTest(ref NativeCandidate candidate);
