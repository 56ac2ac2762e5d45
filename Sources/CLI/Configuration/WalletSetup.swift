import Wallet

extension ServiceConfiguration {
    /// The coin pack table `serve` deploys: the built-in one, or `[wallet] packs_file`, with
    /// `[wallet] store_fee_percent`. A file that cannot be read or is not a valid table stops the
    /// start with one line naming the key and the path.
    public func coinPackTable() throws -> CoinPackTable {
        guard let path = coinPacksFile else {
            do { return try CoinPackTable(storeFeePercent: coinStoreFeePercent) } catch {
                throw CommandFailure("[wallet] store_fee_percent: \(error)")
            }
        }
        switch ConfiguredFile.read(path) {
        case .success(let bytes):
            do { return try CoinPackTable.parse(bytes, storeFeePercent: coinStoreFeePercent) } catch {
                throw CommandFailure("[wallet] packs_file: \(path): \(error)")
            }
        case .failure(let failure):
            throw CommandFailure("[wallet] packs_file: \(failure)")
        }
    }
}
