// Generated from schema/badges-rpc.schema.json by Tests/Peers/embed_schema.py: edit the JSON
// file and re-run the script; a test checks that this text equals the file byte for byte.

extension BadgeRPCSchema {
    /// The text of `schema/badges-rpc.schema.json`, compiled into the binary.
    public static let text: String = #"""
{
  "metadata": {
    "title": "SimpleX badge service RPC",
    "description": "Wire format of badge service requests and responses (JSON Type Definition, RFC 8927). Validate a request body against the definition 'request' and a response body against 'response'. The protocol is specified in badges-rpc.md; where this file and the specification disagree, the specification wins.",
    "conventions": "Optional fields are omitted, never null. Sum types are objects tagged by 'type' with their fields beside the tag. Byte strings are base64url with '=' padding (unpadded input is accepted). Timestamps are RFC 3339 in UTC, written like 2026-04-14T00:00:00Z."
  },
  "definitions": {
    "request": {
      "metadata": {"description": "The request envelope: the client's protocol version, the signing purchase key, and the command."},
      "properties": {
        "version": {"type": "uint16", "metadata": {"description": "Protocol version the client speaks; 1 today."}},
        "request": {"ref": "command"}
      },
      "optionalProperties": {
        "purchaseKey": {
          "ref": "purchaseKey",
          "metadata": {"description": "Omitted only by an unsigned getBadgeCatalog; every other command is signed with this key."}
        }
      }
    },
    "command": {
      "metadata": {"description": "One RPC command, tagged by 'type'."},
      "discriminator": "type",
      "mapping": {
        "getBadgeCatalog": {
          "metadata": {"description": "Prices and offers; when signed, also the purchase's statement."},
          "optionalProperties": {}
        },
        "getBadgeInvoice": {
          "metadata": {"description": "Price a purchase paid by card or crypto; with upgrade, net of the credit for the converted purchase."},
          "properties": {
            "priceId": {"type": "string", "metadata": {"description": "The price the client displayed."}},
            "badgeInfo": {"ref": "badgeInfo"},
            "paymentVia": {"ref": "paymentVia"}
          },
          "optionalProperties": {
            "offerId": {"type": "string", "metadata": {"description": "A discounted duration; omitted buys one month at the price."}},
            "upgrade": {"ref": "upgrade", "metadata": {"description": "Upgrade of a non-store badge."}}
          }
        },
        "redeemBadgeCode": {
          "metadata": {"description": "Redeem a code and receive the first credential."},
          "properties": {
            "masterKey": {"ref": "base64url", "metadata": {"description": "The credential master key, 32 bytes."}},
            "code": {"type": "string", "metadata": {"description": "The code as typed or in canonical form."}}
          }
        },
        "purchaseBadge": {
          "metadata": {"description": "Credit a payment and receive the first credential."},
          "properties": {
            "masterKey": {"ref": "base64url", "metadata": {"description": "The credential master key, 32 bytes."}},
            "payment": {"ref": "payment"}
          },
          "optionalProperties": {
            "upgrade": {"ref": "upgrade", "metadata": {"description": "A store one-time upgrade SKU: the proof of the unexpired cheaper badge it replaces."}}
          }
        },
        "upgradeBadgeSubscription": {
          "metadata": {"description": "An App Store subscription raised to a higher tier on the same key."},
          "properties": {
            "payment": {"ref": "payment", "metadata": {"description": "The higher-tier App Store transaction."}},
            "balance": {"ref": "balance"}
          }
        },
        "issueBadge": {
          "metadata": {"description": "Issue the next period from the balance."},
          "properties": {
            "balance": {"ref": "balance"}
          }
        },
        "pauseBadge": {
          "metadata": {"description": "Suspend issuance and lapse (post-MVP)."},
          "optionalProperties": {}
        },
        "transferBadge": {
          "metadata": {"description": "Move a store subscription credited to another key to the signing key (Restore)."},
          "properties": {
            "masterKey": {"ref": "base64url", "metadata": {"description": "The new purchase's credential master key, 32 bytes."}},
            "payment": {"ref": "payment", "metadata": {"description": "The subscription's store receipt."}}
          }
        }
      }
    },
    "response": {
      "metadata": {"description": "One response per request, tagged by 'type'."},
      "discriminator": "type",
      "mapping": {
        "badgeCatalog": {
          "properties": {
            "catalog": {"ref": "catalog"}
          },
          "optionalProperties": {
            "badgeStatement": {"ref": "statement", "metadata": {"description": "Only for a signed getBadgeCatalog."}}
          }
        },
        "badgeInvoice": {
          "properties": {
            "invoice": {"ref": "invoice"},
            "badgeType": {"type": "string"},
            "months": {"type": "uint8"}
          }
        },
        "badgeCredential": {
          "properties": {
            "statement": {"ref": "statement"}
          },
          "optionalProperties": {
            "credential": {"ref": "credential", "metadata": {"description": "Omitted when nothing can be issued: an exhausted balance, a pause with no current (unexpired) credential, or a subscription the store reports ended."}},
            "receipt": {"type": "string", "metadata": {"description": "Recovery bearer secret; never for lifetime badges."}},
            "subscription": {"ref": "subscriptionState", "metadata": {"description": "Sent exactly when a store subscription funds (or funded, before a transfer) the purchase."}}
          }
        },
        "error": {
          "properties": {
            "code": {"type": "string", "metadata": {"description": "One of: bad_request, unsupported_version, unknown_purchase_key, unknown_offer_id, offer_disabled, offer_mismatch, product_unavailable, payment_not_entitled, payment_pending, provider_unavailable, provider_not_configured, rate_limited, code_invalid, code_used, code_expired, receipt_invalid, receipt_used, test_purchase, transfer_limited, internal. A string, so clients keep codes they do not know."}}
          },
          "optionalProperties": {
            "message": {"type": "string", "metadata": {"description": "Free text for people and logs."}},
            "retryAfter": {"type": "uint32", "metadata": {"description": "Seconds to wait; sent exactly with payment_pending, provider_unavailable and rate_limited."}}
          }
        }
      }
    },
    "base64url": {
      "metadata": {"description": "Bytes as base64url (RFC 4648 section 5), written with '=' padding; unpadded input is accepted."},
      "type": "string"
    },
    "purchaseKey": {
      "metadata": {"description": "Ed25519 public key as its 44-byte X.509 SubjectPublicKeyInfo DER, base64url; the request's signing key."},
      "ref": "base64url"
    },
    "currencyAmount": {
      "metadata": {"description": "An amount in the currency's minor units (cents for usd)."},
      "type": "uint32"
    },
    "badgeInfo": {
      "metadata": {"description": "What a credential attests: tier, expiry and the reserved extra text (empty)."},
      "properties": {
        "badgeType": {"type": "string", "metadata": {"description": "supporter, legend, investor, or a type a later version adds."}},
        "badgeExtra": {"type": "string"},
        "badgeExpiry": {"type": "timestamp"}
      }
    },
    "credential": {
      "metadata": {"description": "A BBS signature over the master key and badgeInfo by the issuer key badgeKeyIdx."},
      "properties": {
        "badgeKeyIdx": {"type": "uint16"},
        "masterKey": {"ref": "base64url"},
        "signature": {"ref": "base64url"},
        "badgeInfo": {"ref": "badgeInfo"}
      }
    },
    "payment": {
      "metadata": {"description": "Evidence of payment."},
      "discriminator": "type",
      "mapping": {
        "apple": {
          "properties": {"jws": {"type": "string", "metadata": {"description": "The App Store signed transaction (compact JWS)."}}}
        },
        "google": {
          "properties": {
            "productId": {"type": "string"},
            "token": {"type": "string", "metadata": {"description": "The Play purchase token."}}
          }
        },
        "invoice": {
          "properties": {"invoiceId": {"type": "string"}}
        },
        "receipt": {
          "properties": {"receipt": {"type": "string", "metadata": {"description": "A recovery receipt: moves the unissued months of its purchase (post-MVP)."}}}
        }
      }
    },
    "paymentVia": {
      "metadata": {"description": "How the client wants to pay an invoice."},
      "discriminator": "type",
      "mapping": {
        "card": {
          "properties": {"provider": {"enum": ["stripe"]}}
        },
        "crypto": {
          "properties": {"currency": {"enum": ["btc", "xmr"]}}
        }
      }
    },
    "paymentTo": {
      "metadata": {"description": "Where an invoice is paid."},
      "discriminator": "type",
      "mapping": {
        "card": {
          "properties": {
            "provider": {"enum": ["stripe"]},
            "url": {"type": "string"}
          }
        },
        "crypto": {
          "properties": {
            "currency": {"enum": ["btc", "xmr"]},
            "address": {"type": "string"},
            "cryptoAmount": {"type": "string", "metadata": {"description": "Decimal amount in the coin's whole units."}}
          }
        }
      }
    },
    "invoice": {
      "metadata": {"description": "amount = price - discount - credit."},
      "properties": {
        "invoiceId": {"type": "string"},
        "price": {"ref": "currencyAmount"},
        "amount": {"ref": "currencyAmount"},
        "currency": {"type": "string"},
        "expiresAt": {"type": "timestamp"},
        "paymentTo": {"ref": "paymentTo"}
      },
      "optionalProperties": {
        "discount": {"ref": "currencyAmount", "metadata": {"description": "The offer's discount."}},
        "credit": {"ref": "currencyAmount", "metadata": {"description": "The upgrade credit."}}
      }
    },
    "upgrade": {
      "metadata": {"description": "Proof of the purchase being upgraded: its key, its receipt signed by that key over the new key, and its balance."},
      "properties": {
        "fromPurchaseKey": {"ref": "base64url"},
        "receipt": {"type": "string"},
        "receiptSignature": {"ref": "base64url", "metadata": {"description": "Ed25519 signature, 64 bytes."}},
        "balance": {"ref": "balance"}
      }
    },
    "catalog": {
      "properties": {
        "prices": {"elements": {"ref": "badgePrice"}},
        "offers": {"elements": {"ref": "badgeOffer"}}
      }
    },
    "badgePrice": {
      "properties": {
        "priceId": {"type": "string"},
        "badgeType": {"type": "string"},
        "monthPrice": {"ref": "currencyAmount"},
        "currency": {"type": "string"},
        "status": {"ref": "badgeItemStatus"},
        "createdAt": {"type": "timestamp"}
      }
    },
    "badgeOffer": {
      "properties": {
        "offerId": {"type": "string"},
        "months": {"type": "uint8"},
        "discount": {"ref": "offerDiscount"},
        "status": {"ref": "badgeItemStatus"},
        "createdAt": {"type": "timestamp"}
      },
      "optionalProperties": {
        "priceId": {"type": "string", "metadata": {"description": "Omitted: the offer applies to every price."}}
      }
    },
    "offerDiscount": {
      "discriminator": "type",
      "mapping": {
        "freeMonths": {
          "properties": {"freeMonths": {"type": "uint8"}}
        },
        "discount": {
          "properties": {"discount": {"type": "uint8", "metadata": {"description": "Percent off."}}}
        }
      }
    },
    "badgeItemStatus": {
      "metadata": {"description": "Disabled items are not sent; deprecated ones still are, so a client's pinned price stays valid."},
      "enum": ["active", "deprecated", "disabled"]
    },
    "subscriptionState": {
      "metadata": {"description": "The store subscription as the service last read it. Clients read values they do not know as not ended."},
      "enum": ["renewing", "cancelled", "billingRetry", "ended"]
    },
    "statement": {
      "metadata": {"description": "Ledger entries the client appends to its replica."},
      "properties": {
        "entries": {"elements": {"ref": "ledgerEntry"}}
      },
      "optionalProperties": {
        "previousEntryId": {"type": "string", "metadata": {"description": "The entry these follow; omitted when they attach to nothing (full history or an opening entry)."}}
      }
    },
    "balance": {
      "metadata": {"description": "The client's assertion of its position: its last ledger entry."},
      "properties": {
        "lastEntry": {"ref": "ledgerEntry"}
      }
    },
    "ledgerEntry": {
      "properties": {
        "entryId": {"type": "string"},
        "changeMonths": {"type": "int16"},
        "balanceMonths": {"type": "uint16"},
        "balanceStartTs": {"type": "timestamp", "metadata": {"description": "Start of the next unissued month."}},
        "balanceAnchorTs": {"type": "timestamp", "metadata": {"description": "Start of the current run of months; month boundaries count from it."}},
        "balanceBadgeType": {"type": "string"},
        "createdAt": {"type": "timestamp"},
        "entryType": {"ref": "ledgerEntryType"}
      },
      "optionalProperties": {
        "wasPausedSince": {"type": "timestamp", "metadata": {"description": "On the entry that ends a pause."}}
      }
    },
    "ledgerEntryType": {
      "discriminator": "type",
      "mapping": {
        "credit": {
          "properties": {"credit": {"ref": "ledgerCredit"}}
        },
        "debit": {
          "properties": {"debit": {"ref": "ledgerDebit"}}
        }
      }
    },
    "ledgerCredit": {
      "discriminator": "type",
      "mapping": {
        "payment": {
          "optionalProperties": {"invoiceId": {"type": "string", "metadata": {"description": "Omitted for store payments."}}}
        },
        "code": {
          "metadata": {"description": "A redeemed code; never names the buyer's invoice."},
          "optionalProperties": {}
        },
        "charge": {
          "metadata": {"description": "A store subscription charge, dated to the store's billing period start."},
          "properties": {"chargeId": {"type": "string"}}
        },
        "support": {
          "optionalProperties": {}
        },
        "transferIn": {
          "properties": {"fromPurchaseKey": {"ref": "base64url"}}
        },
        "opening": {
          "metadata": {"description": "An absolute restatement of the balance."},
          "optionalProperties": {}
        }
      }
    },
    "ledgerDebit": {
      "discriminator": "type",
      "mapping": {
        "refund": {
          "optionalProperties": {}
        },
        "upgrade": {
          "properties": {"toPurchaseKey": {"ref": "base64url"}}
        },
        "transferOut": {
          "properties": {"toPurchaseKey": {"ref": "base64url"}}
        },
        "support": {
          "optionalProperties": {}
        },
        "badge": {
          "metadata": {"description": "A month issued as a credential."},
          "optionalProperties": {}
        },
        "lapse": {
          "metadata": {"description": "Months that ran out unissued."},
          "optionalProperties": {}
        }
      }
    }
  }
}

"""#
}
