// Generated from schema/wallet.schema.json by Tests/Peers/embed_schema.py: edit the JSON
// file and re-run the script; a test checks that this text equals the file byte for byte.

extension WalletSchema {
    /// The text of `schema/wallet.schema.json`, compiled into the binary.
    public static let text: String = #"""
{
  "metadata": {
    "title": "SimpleX coin wallet",
    "description": "Wire format of the coin wallet routes (JSON Type Definition, RFC 8927): GET /wallet/coin-packages answers 'coinPackages'; POST /wallet/coins/purchase takes 'walletPurchaseRequest' and answers 'walletPurchase'; GET /wallet answers 'wallet'; every refusal is 'walletError'. The design is README, Coin wallet.",
    "conventions": "Optional fields are omitted, never null. Amounts are whole coins and whole US cents. Timestamps are RFC 3339 in UTC, written like 2026-04-14T00:00:00Z."
  },
  "definitions": {
    "coinPack": {
      "metadata": {"description": "A consumable coin pack, sold on both stores."},
      "properties": {
        "packId": {"type": "string"},
        "coins": {"type": "uint32"},
        "grossUsdCents": {"type": "uint32", "metadata": {"description": "What the viewer pays."}},
        "netUsdCents": {"type": "uint32", "metadata": {"description": "What is left after the store's fee."}},
        "appStoreProductId": {"type": "string"},
        "playProductId": {"type": "string"}
      }
    },
    "coinPackages": {
      "properties": {
        "storeFeePercent": {"type": "uint8"},
        "packs": {"elements": {"ref": "coinPack"}}
      }
    },
    "walletPurchaseRequest": {
      "metadata": {"description": "Credit a pack. With 'payment', the store is asked server to server before a coin is credited; without it, a dev grant (refused unless [wallet] allow_dev_coin_grants is on)."},
      "properties": {
        "packId": {"type": "string"}
      },
      "optionalProperties": {
        "payment": {"ref": "storePayment"}
      }
    },
    "storePayment": {
      "discriminator": "type",
      "mapping": {
        "apple": {
          "metadata": {"description": "The StoreKit 2 signed transaction (JWS) of the purchase."},
          "properties": {"signedTransaction": {"type": "string"}}
        },
        "google": {
          "metadata": {"description": "The Play purchase token of the purchase of the pack named by packId."},
          "properties": {"purchaseToken": {"type": "string"}}
        }
      }
    },
    "coinRow": {
      "metadata": {"description": "One row of the account's coin ledger; rows are never changed."},
      "properties": {
        "kind": {"enum": ["purchase", "reversal", "dev_grant"]},
        "channel": {"enum": ["apple", "google", "dev"]},
        "packId": {"type": "string"},
        "coins": {"type": "int32", "metadata": {"description": "The change: negative for a reversal."}},
        "grossUsdCents": {"type": "uint32"},
        "netUsdCents": {"type": "uint32"},
        "createdAt": {"type": "timestamp"}
      },
      "optionalProperties": {
        "externalRef": {"type": "string", "metadata": {"description": "The store's transaction or order id."}}
      }
    },
    "walletPurchase": {
      "metadata": {"description": "The credit: the same document when the same account presents the same purchase again."},
      "properties": {
        "purchase": {"ref": "coinRow"}
      }
    },
    "wallet": {
      "properties": {
        "balance": {"type": "uint32", "metadata": {"description": "Spendable coins: the rows' sum, never below zero."}},
        "debt": {"type": "uint32", "metadata": {"description": "Coins a reversal took back beyond the balance."}},
        "rows": {"elements": {"ref": "coinRow"}, "metadata": {"description": "The newest rows, newest first."}}
      }
    },
    "walletError": {
      "properties": {
        "error": {
          "properties": {
            "code": {"enum": ["bad_request", "unauthenticated", "unknown_pack", "pack_mismatch", "receipt_invalid", "receipt_used",
                              "test_purchase", "payment_pending", "dev_grants_disabled", "rate_limited", "provider_not_configured",
                              "provider_unavailable", "internal"]},
            "message": {"type": "string"}
          },
          "optionalProperties": {
            "retryAfter": {"type": "uint32", "metadata": {"description": "Seconds to wait, with payment_pending, rate_limited and provider_unavailable."}}
          }
        }
      }
    }
  }
}

"""#
}
