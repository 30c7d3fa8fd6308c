/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Published test vectors, as the documents print them (hex), for
 * tests/unit/test_quic_crypto.c and tests/bpf/test_quic_crypto_xdp.c: RFC 9001
 * Appendix A and RFC 9369 Appendix A (QUIC v1 and v2 client Initials), FIPS 180-4's
 * examples (SHA-256), RFC 4231 (HMAC-SHA256), RFC 5869 (HKDF) and FIPS-197
 * (AES-128). The QUIC packets were checked byte for byte against the RFCs' text,
 * and their AES-128-GCM tags verify under the RFCs' keys.
 */
#ifndef QUIC_VECTORS_H
#define QUIC_VECTORS_H

#include <assert.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <linux/types.h>

/* hex into out (at most max bytes); returns the bytes written. */
static inline size_t quic_unhex(const char *hex, void *out, size_t max)
{
	size_t n = strlen(hex) / 2, i;
	unsigned int byte;

	assert(strlen(hex) % 2 == 0 && n <= max);
	for (i = 0; i < n; i++) {
		assert(sscanf(hex + 2 * i, "%2x", &byte) == 1);
		((__u8 *)out)[i] = byte;
	}
	return n;
}

/* A client Initial of Appendix A: its keys (A.1) and its packet (A.2). */
struct quic_vector {
	const char *name;
	__u32 version;
	const char *salt;		/* initial_salt (RFC 9001 5.2, RFC 9369 3.3.1) */
	const char *dcid;
	const char *initial_secret, *client_secret, *key, *iv, *hp;
	const char *header;		/* unprotected, the packet number (4 bytes) last */
	const char *protected_header;
	__u64 pn;
	const char *sample, *mask;	/* the header protection's (5 bytes of mask) */
	const char *crypto;		/* the payload's CRYPTO frame; PADDING follows */
	__u32 payload_len;		/* the frames' bytes, tag excluded */
	const char *packet;		/* the protected packet, whole */
};

static const struct quic_vector quic_vectors[] = {
	{
		.name = "RFC 9001 A.2 (v1)",
		.version = 0x00000001,
		.salt = "38762cf7f55934b34d179ae6a4c80cadccbb7f0a",
		.dcid = "8394c8f03e515708",
		.initial_secret = "7db5df06e7a69e432496adedb0085192"
				  "3595221596ae2ae9fb8115c1e9ed0a44",
		.client_secret = "c00cf151ca5be075ed0ebfb5c80323c4"
				 "2d6b7db67881289af4008f1f6c357aea",
		.key = "1f369613dd76d5467730efcbe3b1a22d",
		.iv = "fa044b2f42a3fd3b46fb255c",
		.hp = "9f50449e04a0e810283a1e9933adedd2",
		.header = "c300000001088394c8f03e5157080000449e00000002",
		.protected_header = "c000000001088394c8f03e5157080000449e7b9aec34",
		.pn = 2,
		.sample = "d1b1c98dd7689fb8ec11d242b123dc9b",
		.mask = "437b9aec36",
		.crypto =
		"060040f1010000ed0303ebf8fa56f12939b9584a3896472ec40bb863cfd3e868"
		"04fe3a47f06a2b69484c00000413011302010000c000000010000e00000b6578"
		"616d706c652e636f6dff01000100000a00080006001d00170018001000070005"
		"04616c706e000500050100000000003300260024001d00209370b2c9caa47fba"
		"baf4559fedba753de171fa71f50f1ce15d43e994ec74d748002b000302030400"
		"0d0010000e0403050306030203080408050806002d00020101001c0002400100"
		"3900320408ffffffffffffffff05048000ffff07048000ffff08011001048000"
		"75300901100f088394c8f03e51570806048000ffff",
		.payload_len = 1162,
		.packet =
		"c000000001088394c8f03e5157080000449e7b9aec34d1b1c98dd7689fb8ec11"
		"d242b123dc9bd8bab936b47d92ec356c0bab7df5976d27cd449f63300099f399"
		"1c260ec4c60d17b31f8429157bb35a1282a643a8d2262cad67500cadb8e7378c"
		"8eb7539ec4d4905fed1bee1fc8aafba17c750e2c7ace01e6005f80fcb7df6212"
		"30c83711b39343fa028cea7f7fb5ff89eac2308249a02252155e2347b63d58c5"
		"457afd84d05dfffdb20392844ae812154682e9cf012f9021a6f0be17ddd0c208"
		"4dce25ff9b06cde535d0f920a2db1bf362c23e596d11a4f5a6cf3948838a3aec"
		"4e15daf8500a6ef69ec4e3feb6b1d98e610ac8b7ec3faf6ad760b7bad1db4ba3"
		"485e8a94dc250ae3fdb41ed15fb6a8e5eba0fc3dd60bc8e30c5c4287e53805db"
		"059ae0648db2f64264ed5e39be2e20d82df566da8dd5998ccabdae053060ae6c"
		"7b4378e846d29f37ed7b4ea9ec5d82e7961b7f25a9323851f681d582363aa5f8"
		"9937f5a67258bf63ad6f1a0b1d96dbd4faddfcefc5266ba6611722395c906556"
		"be52afe3f565636ad1b17d508b73d8743eeb524be22b3dcbc2c7468d54119c74"
		"68449a13d8e3b95811a198f3491de3e7fe942b330407abf82a4ed7c1b311663a"
		"c69890f4157015853d91e923037c227a33cdd5ec281ca3f79c44546b9d90ca00"
		"f064c99e3dd97911d39fe9c5d0b23a229a234cb36186c4819e8b9c5927726632"
		"291d6a418211cc2962e20fe47feb3edf330f2c603a9d48c0fcb5699dbfe58964"
		"25c5bac4aee82e57a85aaf4e2513e4f05796b07ba2ee47d80506f8d2c25e50fd"
		"14de71e6c418559302f939b0e1abd576f279c4b2e0feb85c1f28ff18f58891ff"
		"ef132eef2fa09346aee33c28eb130ff28f5b766953334113211996d20011a198"
		"e3fc433f9f2541010ae17c1bf202580f6047472fb36857fe843b19f5984009dd"
		"c324044e847a4f4a0ab34f719595de37252d6235365e9b84392b061085349d73"
		"203a4a13e96f5432ec0fd4a1ee65accdd5e3904df54c1da510b0ff20dcc0c77f"
		"cb2c0e0eb605cb0504db87632cf3d8b4dae6e705769d1de354270123cb11450e"
		"fc60ac47683d7b8d0f811365565fd98c4c8eb936bcab8d069fc33bd801b03ade"
		"a2e1fbc5aa463d08ca19896d2bf59a071b851e6c239052172f296bfb5e724047"
		"90a2181014f3b94a4e97d117b438130368cc39dbb2d198065ae3986547926cd2"
		"162f40a29f0c3c8745c0f50fba3852e566d44575c29d39a03f0cda721984b6f4"
		"40591f355e12d439ff150aab7613499dbd49adabc8676eef023b15b65bfc5ca0"
		"6948109f23f350db82123535eb8a7433bdabcb909271a6ecbcb58b936a88cd4e"
		"8f2e6ff5800175f113253d8fa9ca8885c2f552e657dc603f252e1a8e308f76f0"
		"be79e2fb8f5d5fbbe2e30ecadd220723c8c0aea8078cdfcb3868263ff8f09400"
		"54da48781893a7e49ad5aff4af300cd804a6b6279ab3ff3afb64491c85194aab"
		"760d58a606654f9f4400e8b38591356fbf6425aca26dc85244259ff2b19c41b9"
		"f96f3ca9ec1dde434da7d2d392b905ddf3d1f9af93d1af5950bd493f5aa731b4"
		"056df31bd267b6b90a079831aaf579be0a39013137aac6d404f518cfd4684064"
		"7e78bfe706ca4cf5e9c5453e9f7cfd2b8b4c8d169a44e55c88d4a9a7f9474241"
		"e221af44860018ab0856972e194cd934",
	},
	{
		.name = "RFC 9369 A.2 (v2)",
		.version = 0x6b3343cf,
		.salt = "0dede3def700a6db819381be6e269dcbf9bd2ed9",
		.dcid = "8394c8f03e515708",
		.initial_secret = "2062e8b3cd8d52092614b8071d0aa1fb"
				  "7c2e3ac193f78b280e72d8f5751f6aba",
		.client_secret = "14ec9d6eb9fd7af83bf5a668bc17a7e2"
				 "83766aade7ecd0891f70f9ff7f4bf47b",
		.key = "8b1a0bc121284290a29e0971b5cd045d",
		.iv = "91f73e2351d8fa91660e909f",
		.hp = "45b95e15235d6f45a6b19cbcb0294ba9",
		.header = "d36b3343cf088394c8f03e5157080000449e00000002",
		.protected_header = "d76b3343cf088394c8f03e5157080000449ea0c95e82",
		.pn = 2,
		.sample = "ffe67b6abcdb4298b485dd04de806071",
		.mask = "94a0c95e80",
		.crypto =
		"060040f1010000ed0303ebf8fa56f12939b9584a3896472ec40bb863cfd3e868"
		"04fe3a47f06a2b69484c00000413011302010000c000000010000e00000b6578"
		"616d706c652e636f6dff01000100000a00080006001d00170018001000070005"
		"04616c706e000500050100000000003300260024001d00209370b2c9caa47fba"
		"baf4559fedba753de171fa71f50f1ce15d43e994ec74d748002b000302030400"
		"0d0010000e0403050306030203080408050806002d00020101001c0002400100"
		"3900320408ffffffffffffffff05048000ffff07048000ffff08011001048000"
		"75300901100f088394c8f03e51570806048000ffff",
		.payload_len = 1162,
		.packet =
		"d76b3343cf088394c8f03e5157080000449ea0c95e82ffe67b6abcdb4298b485"
		"dd04de806071bf03dceebfa162e75d6c96058bdbfb127cdfcbf903388e99ad04"
		"9f9a3dd4425ae4d0992cfff18ecf0fdb5a842d09747052f17ac2053d21f57c5d"
		"250f2c4f0e0202b70785b7946e992e58a59ac52dea6774d4f03b55545243cf1a"
		"12834e3f249a78d395e0d18f4d766004f1a2674802a747eaa901c3f10cda5500"
		"cb9122faa9f1df66c392079a1b40f0de1c6054196a11cbea40afb6ef5253cd68"
		"18f6625efce3b6def6ba7e4b37a40f7732e093daa7d52190935b8da58976ff33"
		"12ae50b187c1433c0f028edcc4c2838b6a9bfc226ca4b4530e7a4ccee1bfa2a3"
		"d396ae5a3fb512384b2fdd851f784a65e03f2c4fbe11a53c7777c023462239dd"
		"6f7521a3f6c7d5dd3ec9b3f233773d4b46d23cc375eb198c63301c21801f6520"
		"bcfb7966fc49b393f0061d974a2706df8c4a9449f11d7f3d2dcbb90c6b877045"
		"636e7c0c0fe4eb0f697545460c806910d2c355f1d253bc9d2452aaa549e27a1f"
		"ac7cf4ed77f322e8fa894b6a83810a34b361901751a6f5eb65a0326e07de7c12"
		"16ccce2d0193f958bb3850a833f7ae432b65bc5a53975c155aa4bcb4f7b2c4e5"
		"4df16efaf6ddea94e2c50b4cd1dfe06017e0e9d02900cffe1935e0491d77ffb4"
		"fdf85290fdd893d577b1131a610ef6a5c32b2ee0293617a37cbb08b847741c3b"
		"8017c25ca9052ca1079d8b78aebd47876d330a30f6a8c6d61dd1ab5589329de7"
		"14d19d61370f8149748c72f132f0fc99f34d766c6938597040d8f9e2bb522ff9"
		"9c63a344d6a2ae8aa8e51b7b90a4a806105fcbca31506c446151adfeceb51b91"
		"abfe43960977c87471cf9ad4074d30e10d6a7f03c63bd5d4317f68ff325ba3bd"
		"80bf4dc8b52a0ba031758022eb025cdd770b44d6d6cf0670f4e990b22347a7db"
		"848265e3e5eb72dfe8299ad7481a408322cac55786e52f633b2fb6b614eaed18"
		"d703dd84045a274ae8bfa73379661388d6991fe39b0d93debb41700b41f90a15"
		"c4d526250235ddcd6776fc77bc97e7a417ebcb31600d01e57f32162a8560cacc"
		"7e27a096d37a1a86952ec71bd89a3e9a30a2a26162984d7740f81193e8238e61"
		"f6b5b984d4d3dfa033c1bb7e4f0037febf406d91c0dccf32acf423cfa1e70710"
		"10d3f270121b493ce85054ef58bada42310138fe081adb04e2bd901f2f13458b"
		"3d6758158197107c14ebb193230cd1157380aa79cae1374a7c1e5bbcb80ee23e"
		"06ebfde206bfb0fcbc0edc4ebec309661bdd908d532eb0c6adc38b7ca7331dce"
		"8dfce39ab71e7c32d318d136b6100671a1ae6a6600e3899f31f0eed19e3417d1"
		"34b90c9058f8632c798d4490da4987307cba922d61c39805d072b589bd52fdf1"
		"e86215c2d54e6670e07383a27bbffb5addf47d66aa85a0c6f9f32e59d85a44dd"
		"5d3b22dc2be80919b490437ae4f36a0ae55edf1d0b5cb4e9a3ecabee93dfc6e3"
		"8d209d0fa6536d27a5d6fbb17641cde27525d61093f1b28072d111b2b4ae5f89"
		"d5974ee12e5cf7d5da4d6a31123041f33e61407e76cffcdcfd7e19ba58cf4b53"
		"6f4c4938ae79324dc402894b44faf8afbab35282ab659d13c93f70412e85cb19"
		"9a37ddec600545473cfb5a05e08d0b209973b2172b4d21fb69745a262ccde96b"
		"a18b2faa745b6fe189cf772a9f84cbfc",
	},
};

#define QUIC_N_VECTORS	(sizeof(quic_vectors) / sizeof(quic_vectors[0]))
/* Where the packet number starts in both packets: 1 + 4 + 1 + 8 + 1 + 1 (token) + 2. */
#define QUIC_VECTOR_PN_OFFSET	18

/* A known answer of a keyed function: key, message, output (hex). */
struct quic_kat {
	const char *name;
	const char *key, *msg, *out;
};

/* SHA-256: FIPS 180-4's one- and two-block examples ("abc" and 56 bytes), the empty one. */
static const struct quic_kat quic_sha256_kats[] = {
	{ "SHA-256 \"abc\"", NULL, "616263",
	  "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
	{ "SHA-256 of 448 bits", NULL,
	  "6162636462636465636465666465666765666768666768696768696a68696a6b"
	  "696a6b6c6a6b6c6d6b6c6d6e6c6d6e6f6d6e6f706e6f7071",
	  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
	{ "SHA-256 of nothing", NULL, "",
	  "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
};

/* HMAC-SHA256: RFC 4231's test cases 1 to 4 (keys of at most 64 bytes, short data). */
static const struct quic_kat quic_hmac_kats[] = {
	{ "RFC 4231 case 1", "0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b", "4869205468657265",
	  "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7" },
	{ "RFC 4231 case 2", "4a656665",
	  "7768617420646f2079612077616e7420666f72206e6f7468696e673f",
	  "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843" },
	{ "RFC 4231 case 3", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	  "dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd"
	  "dddddddddddddddddddddddddddddddddddd",
	  "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe" },
	{ "RFC 4231 case 4", "0102030405060708090a0b0c0d0e0f10111213141516171819",
	  "cdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcd"
	  "cdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcd",
	  "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b" },
};

/* HKDF-SHA256: RFC 5869's test cases 1 and 3 (an empty salt: 32 zero bytes). */
struct quic_hkdf_kat {
	const char *name;
	const char *ikm, *salt, *info, *prk, *okm;
};

static const struct quic_hkdf_kat quic_hkdf_kats[] = {
	{ "RFC 5869 case 1", "0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b",
	  "000102030405060708090a0b0c", "f0f1f2f3f4f5f6f7f8f9",
	  "077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5",
	  "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf"
	  "34007208d5b887185865" },
	{ "RFC 5869 case 3", "0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b", "", "",
	  "19ef24a32c717b167f33a91d6f648bdf96596776afdb6377ac434c1c293ccb04",
	  "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d"
	  "9d201395faa4b61a96c8" },
};

/* AES-128: FIPS-197 Appendix C.1 and Appendix B (key, plaintext, ciphertext). */
static const struct quic_kat quic_aes_kats[] = {
	{ "FIPS-197 C.1", "000102030405060708090a0b0c0d0e0f", "00112233445566778899aabbccddeeff",
	  "69c4e0d86a7b0430d8cdb78070b4c55a" },
	{ "FIPS-197 B", "2b7e151628aed2a6abf7158809cf4f3c", "3243f6a8885a308d313198a2e0370734",
	  "3925841d02dc09fbdc118597196a0b32" },
};

/* FIPS-197 A.1: the last round key (w[40..43]) of Appendix B's key. */
#define QUIC_AES_B_LAST_ROUND_KEY	"d014f9a8c9ee2589e13f0cc8b6630ca6"

#endif
